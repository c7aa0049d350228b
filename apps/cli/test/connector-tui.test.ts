// The connector's questions in the real TUI (tmux), against the mock model and a small fake
// GitHub: the dialog shows the action, its class and the preview of what will be sent while
// GitHub has seen nothing; "y" sends it, "n" sends nothing and the model is told; a destructive
// action never offers "always". `/connectors` prints the status and rules; login does not echo.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, MODEL, type Workspace, workspace } from "./helpers.js";

const TOKEN = "ghp_tuiFakeToken0123456789abcdefABCDEF";
const tmuxMissing = spawnSync("tmux", ["-V"]).error !== undefined;
let socket = "";
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const screen = (session: string) => tmux("capture-pane", "-p", "-J", "-t", session);

async function waitFor(session: string, expected: string | RegExp, timeoutMs = 8000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    last = screen(session);
    if (typeof expected === "string" ? last.includes(expected) : expected.test(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${String(expected)}; the screen was:\n${last}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

async function waitForFile(path: string, timeoutMs = 8000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path) || readFileSync(path, "utf8").trim() === "") {
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 40));
  }
  return readFileSync(path, "utf8").trim();
}

async function type(session: string, text: string): Promise<void> {
  tmux("send-keys", "-t", session, "-l", text);
  await waitFor(session, `› ${text}`);
  tmux("send-keys", "-t", session, "Enter");
}

let server: MockServer;
let ws: Workspace;
let github: Server;
let githubUrl = "";
const sent: string[] = [];

beforeAll(async () => {
  if (tmuxMissing) throw new Error("tmux is not installed: apt-get install -y tmux");
  github = createServer((req, res) => {
    sent.push(`${req.method} ${req.url}`);
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `token ${TOKEN}`)
      return void res.writeHead(401).end('{"message":"Bad credentials"}');
    if (req.method === "GET" && req.url === "/user") return void res.end('{"login":"octo"}');
    if (req.method === "POST" && req.url === "/repos/acme/web/issues")
      return void res
        .writeHead(201)
        .end(JSON.stringify({ number: 7, title: "Login fails", state: "open", html_url: "https://x/7" }));
    res.writeHead(404).end('{"message":"Not Found"}');
  });
  await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
  githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
  server = await startMockServer();
  ws = workspace();
  writeFileSync(
    join(ws.home, "config.json"),
    JSON.stringify({
      extensions: { connector: { config: { connectors: { github: { baseUrl: githubUrl } } } } },
    }),
  );
});
afterEach(() => {
  spawnSync("tmux", ["-L", socket, "kill-server"]);
});
afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => github?.close(() => resolve()));
  ws?.dispose();
});

const execute = (toolRef: string, args: Record<string, unknown>) => ({
  toolCalls: [{ name: "ExecuteTool", arguments: { toolRef, arguments: args } }],
});

describe("connector approvals in the TUI", () => {
  it("asks before anything is sent; y sends, n does not and the model is told", async () => {
    server.setScenario({
      turns: [
        execute("github:github__create_issue", { repo: "acme/web", title: "Login fails" }),
        { text: "Filed issue 7." },
        execute("github:github__merge_pull_request", { repo: "acme/web", number: 3 }),
        { text: "Not merged." },
      ],
    });
    const session = "connector";
    socket = `keel-connector-tui-${process.pid}`;
    const exitFile = join(ws.home, "connector.exit");
    const command = [
      "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CI -u LINEAR_API_KEY",
      `ANTHROPIC_BASE_URL='${server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test GITHUB_TOKEN='${TOKEN}'`,
      `HOME='${ws.user}' KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
      `'${process.execPath}' '${BIN}' --cwd '${ws.repo}' --model ${MODEL};`,
      `echo $? > '${exitFile}'; sleep 30`,
    ].join(" ");
    tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "45", command);
    await waitFor(session, /ready ·/, 20_000);

    await type(session, "file the login bug");
    let now = await waitFor(session, "connector asks: GitHub: allow github__create_issue?");
    // The preview of what will be sent, the class and the answers on offer, before anything is sent.
    expect(now).toContain("POST /repos/acme/web/issues");
    expect(now).toContain("title: Login fails");
    expect(now).toContain("A create action. Policy: ask (default for create).");
    expect(now).toContain("[e] Allow this exact call");
    expect(now).toContain("[a] Always allow");
    expect(sent).toEqual([]);
    tmux("send-keys", "-t", session, "y");
    now = await waitFor(session, "Filed issue 7.");
    expect(now).toContain('Created issue #7 "Login fails"');
    expect(sent).toEqual(["POST /repos/acme/web/issues"]);

    await type(session, "merge pull request 3");
    now = await waitFor(session, "connector asks: GitHub: allow github__merge_pull_request?");
    expect(now).toContain("PUT /repos/acme/web/pulls/3/merge");
    expect(now).toContain("method: merge");
    expect(now).toContain("A destructive action.");
    // Destructive: approved one call at a time, never "always".
    expect(now).toContain("[e] Allow this exact call");
    expect(now).not.toContain("[a] Always allow");
    tmux("send-keys", "-t", session, "n");
    now = await waitFor(session, "Not merged.");
    expect(sent).toEqual(["POST /repos/acme/web/issues"]);
    const toModel = JSON.stringify(server.requests.at(-1)!.body);
    expect(toModel).toContain("The user denied github__merge_pull_request; it was not run.");

    await type(session, "/connectors");
    now = await waitFor(session, "Rules in effect in this session");
    expect(now).toContain("GitHub (github): connected via $GITHUB_TOKEN");
    expect(now).not.toContain(TOKEN);

    // Quit, so nothing still writes into the home when it is removed.
    await type(session, "/quit");
    expect(await waitForFile(exitFile)).toBe("0");
  });

  it("keel connector login asks for the token without echoing it", async () => {
    const session = "login";
    socket = `keel-connector-login-${process.pid}`;
    const exitFile = join(ws.home, "login.exit");
    const command = [
      "env -u GITHUB_TOKEN",
      `HOME='${ws.user}' KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
      `'${process.execPath}' '${BIN}' connector login github;`,
      `echo $? > '${exitFile}'; sleep 30`,
    ].join(" ");
    tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "20", command);
    await waitFor(session, "GitHub personal access token: ", 20_000);
    tmux("send-keys", "-t", session, "-l", TOKEN);
    tmux("send-keys", "-t", session, "Enter");
    expect(await waitForFile(exitFile, 20_000)).toBe("0");
    const now = await waitFor(session, "Logged in to GitHub as octo");
    expect(now).not.toContain(TOKEN);
    expect(now).not.toContain(TOKEN.slice(0, 12));
  });
});
