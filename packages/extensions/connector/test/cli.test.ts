// `keel connector …` through its CliIO: login (checked against the fake GitHub, stored 0600),
// logout, list and policy; the token is never printed.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIO } from "@keel/extension-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../src/config.js";
import { type ConnectorConfig, connectorCli, githubConnector, linearConnector } from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";

let fake: FakeGitHub;
let dataDir: string;
beforeAll(async () => {
  fake = await startFakeGitHub();
  dataDir = mkdtempSync(join(tmpdir(), "keel-connector-cli-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  code: number;
  out: string;
  err: string;
  prompts: { question: string; secret: boolean | undefined }[];
}

async function run(
  argv: string[],
  options: {
    stdin?: string;
    env?: Record<string, string>;
    answer?: string;
    config?: Partial<ConnectorConfig>;
  } = {},
): Promise<Run> {
  let out = "";
  let err = "";
  const prompts: Run["prompts"] = [];
  const io: CliIO = {
    cwd: dataDir,
    keelHome: dataDir,
    env: options.env ?? {},
    interactive: options.answer !== undefined,
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    dataDir: () => dataDir,
    config: { ...DEFAULT_CONFIG, connectors: { github: { baseUrl: fake.url } }, ...options.config },
    ...(options.answer !== undefined
      ? {
          prompt: async (question: string, o?: { secret?: boolean }) => {
            prompts.push({ question, secret: o?.secret });
            return options.answer;
          },
        }
      : {}),
  };
  const cli = connectorCli([githubConnector, linearConnector], {
    readStdin: async () => options.stdin ?? "",
  });
  const code = await cli.run(argv, io);
  return { code, out, err, prompts };
}

describe("keel connector", () => {
  it("login --with-token checks the token with GitHub and stores it readable only by the user", async () => {
    const r = await run(["login", "github", "--with-token"], { stdin: `${GITHUB_TOKEN}\n` });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Logged in to GitHub as octo");
    expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: "/user" });
    const file = join(dataDir, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).github).toMatchObject({
      token: GITHUB_TOKEN,
      account: "octo",
    });
    expect(r.out + r.err).not.toContain(GITHUB_TOKEN);
  });

  it("list says how each connector is connected, never with the token", async () => {
    const r = await run(["list"]);
    expect(r.out).toContain(
      `GitHub (github): connected via keel connector login (octo) · ${fake.url} · 15 actions`,
    );
    expect(r.out).toContain(
      "Linear (linear): not connected — set $LINEAR_API_KEY or run `keel connector login linear`",
    );
    expect(r.out).not.toContain(GITHUB_TOKEN);
    const viaEnv = await run(["list"], { env: { GITHUB_TOKEN: "ghp_other" } });
    expect(viaEnv.out).toContain("GitHub (github): connected via $GITHUB_TOKEN");
  });

  it("a rejected token is not stored and not printed", async () => {
    const r = await run(["login", "github", "--with-token"], { stdin: "ghp_rejectedToken123" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("GitHub unauthorized (HTTP 401): Bad credentials");
    expect(r.err).toContain("Nothing was stored");
    expect(r.out + r.err).not.toContain("ghp_rejectedToken123");
    expect(JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8")).github.token).toBe(
      GITHUB_TOKEN,
    );
  });

  it("interactive login asks without echo; --no-verify stores unchecked", async () => {
    const r = await run(["login", "linear", "--no-verify"], { answer: "lin_api_typed123" });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual([{ question: "Linear personal API key: ", secret: true }]);
    expect(r.out).toContain("Create a personal API key in Linear");
    expect(r.out).toContain("Logged in to Linear;");
    expect(r.out).not.toContain("lin_api_typed123");
  });

  it("without a terminal and without --with-token it refuses, as a usage error", async () => {
    const r = await run(["login", "github"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--with-token");
  });

  it("logout removes the stored token and says when the variable still connects it", async () => {
    const r = await run(["logout", "linear"], { env: { LINEAR_API_KEY: "x" } });
    expect(r.out).toBe(
      "Removed the stored Linear token. $LINEAR_API_KEY is still set, so Linear stays connected.\n",
    );
    expect((await run(["logout", "linear"])).out).toBe("No stored Linear token.\n");
    expect(JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8"))).not.toHaveProperty("linear");
  });

  it("policy prints every action's rule and where it comes from", async () => {
    const r = await run(["policy"], {
      config: { policy: { classes: { create: "allow" }, actions: { github__merge_pull_request: "deny" } } },
    });
    expect(r.code).toBe(0);
    expect(r.out).toContain("Rules from your user config");
    expect(r.out).toMatch(/allow\s+github__list_issues\s+read\s+default for read/);
    expect(r.out).toMatch(/allow\s+github__create_issue\s+create\s+policy\.classes\.create/);
    expect(r.out).toMatch(/ask\s+github__update_issue\s+update\s+default for update/);
    expect(r.out).toMatch(
      /deny\s+github__merge_pull_request\s+destructive\s+policy\.actions\.github__merge_pull_request/,
    );
    expect(r.out).toMatch(/ask\s+linear__archive_issue\s+destructive\s+default for destructive/);
  });

  it("without a data folder from the host it stores nothing and says why", async () => {
    const cli = connectorCli([githubConnector]);
    let err = "";
    const code = await cli.run(["login", "github", "--with-token"], {
      cwd: dataDir,
      keelHome: dataDir,
      env: {},
      interactive: false,
      stdout: () => {},
      stderr: (t) => {
        err += t;
      },
    });
    expect(code).toBe(1);
    expect(err).toContain("no data folder");
  });

  it("usage errors exit 2", async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(["login", "gitlab"])).err).toContain('No connector "gitlab": one of github, linear.');
    expect((await run(["frobnicate"])).code).toBe(2);
    expect((await run(["list", "--with-token"])).code).toBe(2);
    expect((await run(["--help"])).code).toBe(0);
  });
});
