// The composed connector extension in print mode: the built bin against the mock model and a
// small fake GitHub on 127.0.0.1. A read runs, a create that would ask is denied with the reason
// given to the model (nobody to ask), and the token is in no stream-json line, no journal and
// no request to the model.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel } from "./helpers.js";

const TOKEN = "ghp_cliFakeToken0123456789abcdefABCDEF";
const { fresh } = mockSuite();
let github: Server;
let githubUrl = "";
const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  github = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `token ${TOKEN}`)
      return void res.writeHead(401).end('{"message":"Bad credentials"}');
    if (req.method === "GET" && req.url === "/user") return void res.end('{"login":"octo"}');
    if (req.method === "GET" && req.url === "/repos/acme/web/issues/1")
      return void res.end(
        JSON.stringify({
          number: 1,
          title: "Crash on start",
          state: "open",
          html_url: "https://x/1",
          body: "boom",
          user: { login: "octo" },
        }),
      );
    res.writeHead(404).end('{"message":"Not Found"}');
  });
  await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
  githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => github.close(() => resolve())));

const execute = (toolRef: string, args: Record<string, unknown>) => ({
  toolCalls: [{ name: "ExecuteTool", arguments: { toolRef, arguments: args } }],
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe("keel -p with the connector extension", () => {
  it("runs reads, denies what would ask with the reason, and never shows the token", async () => {
    const { server, ws } = fresh([
      execute("github:github__get_issue", { repo: "acme/web", number: 1 }),
      execute("github:github__create_issue", { repo: "acme/web", title: "Another crash" }),
      { text: "Done." },
    ]);
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: { connector: { config: { connectors: { github: { baseUrl: githubUrl } } } } },
      }),
    );
    const r = await runKeel(
      ["-p", "look at issue 1", "--output-format", "stream-json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
        env: { GITHUB_TOKEN: TOKEN, LINEAR_API_KEY: undefined },
      },
    );
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["GET /repos/acme/web/issues/1"]);

    const events = lines(r.stdout) as { type: string; toolName?: string; text?: string }[];
    const ends = events.filter((e) => e.type === "tool_end");
    expect(ends.map((e) => e.text)).toEqual([
      expect.stringContaining("#1 Crash on start"),
      expect.stringContaining(
        "github__create_issue needs the user's approval (policy: ask, default for create) and nobody can answer",
      ),
    ]);
    const toModel = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(toModel).toContain("nobody can answer in this session");

    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stderr).not.toContain(TOKEN);
    for (const request of server.requests) expect(request.raw).not.toContain(TOKEN);
    for (const file of files(join(ws.home, "sessions")))
      expect(readFileSync(file, "utf8")).not.toContain(TOKEN);
  });

  it("keel connector login stores the token 0600 where sessions read it; list, policy and a print run use it", async () => {
    const { server, ws } = fresh([
      execute("github:github__get_issue", { repo: "acme/web", number: 1 }),
      { text: "Done." },
    ]);
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: {
          connector: {
            config: {
              connectors: { github: { baseUrl: githubUrl } },
              policy: { actions: { github__merge_pull_request: "deny" } },
            },
          },
        },
      }),
    );
    const env = { GITHUB_TOKEN: undefined, LINEAR_API_KEY: undefined };
    const login = await runKeel(["connector", "login", "github", "--with-token"], {
      ws,
      env,
      input: `${TOKEN}\n`,
    });
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toContain("Logged in to GitHub as octo");
    expect(login.stdout).not.toContain(TOKEN);
    const stored = join(ws.home, "data", "connector", "credentials.json");
    expect(statSync(stored).mode & 0o777).toBe(0o600);

    const list = await runKeel(["connector", "list"], { ws, env });
    expect(list.stdout).toContain(
      `GitHub (github): connected via keel connector login (octo) · ${githubUrl} · 15 actions`,
    );
    const policy = await runKeel(["connector", "policy"], { ws, env });
    expect(policy.stdout).toMatch(
      /deny\s+github__merge_pull_request\s+destructive\s+policy\.actions\.github__merge_pull_request/,
    );

    seen.length = 0;
    const r = await runKeel(["-p", "look", "--model", MODEL, "--cwd", ws.repo], { server, ws, env });
    expect(r.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(["GET /repos/acme/web/issues/1"]);

    const logout = await runKeel(["connector", "logout", "github"], { ws, env });
    expect(logout.stdout).toBe("Removed the stored GitHub token.\n");
  });
});
