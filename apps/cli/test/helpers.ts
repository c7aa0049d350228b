// Runs the BUILT keel bin (dist/bin.cjs) as a child process against the mock model server, in a
// temporary git repo with its own KEEL_HOME, the way a user or a script would.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockServer, type ScenarioStep, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { assertValid } from "./print-schema.js";

export const CLI_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const BIN = join(CLI_ROOT, "dist/bin.cjs");
/** A catalog model (legacy since Claude 5, on the Claude 4 wire) the SDK does not warn about, so stderr holds only keel's lines. */
export const MODEL = "anthropic/claude-sonnet-4-6";

export interface Workspace {
  /** KEEL_HOME. */
  home: string;
  repo: string;
  /** HOME: an empty user home, so the real ~/.claude (settings, CLAUDE.md, skills, agents) is never read. */
  user: string;
  dispose(): void;
}

export function workspace(): Workspace {
  const base = mkdtempSync(join(tmpdir(), "keel-cli-test-"));
  const home = join(base, "home");
  const repo = join(base, "repo");
  const user = join(base, "user");
  mkdirSync(home);
  mkdirSync(repo);
  mkdirSync(user);
  execFileSync("git", ["init", "-q", repo]);
  return {
    home,
    repo,
    user,
    dispose: () => rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}

export interface MockSuite {
  /**
   * Points the file's mock server at `turns` (then `fallback`, if the suite has one) with an
   * empty request log, and makes a workspace that is disposed after the test.
   */
  fresh(turns: ScenarioStep[]): { server: MockServer; ws: Workspace };
}

/** One mock model server for the calling test file (started before, closed after its tests). */
export function mockSuite(fallback?: ScenarioStep): MockSuite {
  let server: MockServer | undefined;
  let ws: Workspace | undefined;
  const scenario = (turns: ScenarioStep[]) => (fallback ? { turns, fallback } : { turns });
  beforeAll(async () => {
    server = await startMockServer(scenario([]));
  });
  afterAll(() => server?.close());
  afterEach(() => {
    ws?.dispose();
    ws = undefined;
  });
  return {
    fresh(turns) {
      if (!server)
        throw new Error("mockSuite: fresh() runs inside a test, after beforeAll started the server");
      server.setScenario(scenario(turns));
      server.requests.length = 0;
      ws = workspace();
      return { server, ws };
    },
  };
}

export interface KeelEnv {
  server?: MockServer;
  ws: Workspace;
  /** Extra or overriding variables; undefined removes one. */
  env?: Record<string, string | undefined>;
}

export function childEnv({ server, ws, env }: KeelEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"])
    delete base[name];
  return {
    ...base,
    // npm keeps its cache where it was (a fresh HOME would be an empty, offline one).
    npm_config_cache: base.npm_config_cache ?? base.NPM_CONFIG_CACHE ?? join(homedir(), ".npm"),
    HOME: ws.user,
    KEEL_HOME: ws.home,
    NO_PROXY: "127.0.0.1,localhost",
    ...(server ? { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: "test" } : {}),
    ...env,
  };
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** stdout so far. */
  stdout(): string;
  /** Resolves when stdout holds a line that satisfies `match`. */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  done: Promise<Finished>;
}

export interface StartOptions extends KeelEnv {
  input?: string;
  /** Node flags before the script (e.g. --import). */
  nodeArgs?: string[];
  /** The directory keel starts in (subcommands work on it); default the test's. */
  cwd?: string;
  /** A program (and its arguments) that runs node, e.g. /usr/bin/time to measure the whole process. */
  wrapper?: string[];
}

export function startKeel(args: string[], setup: StartOptions): Running {
  const [program, ...wrapperArgs] = [...(setup.wrapper ?? []), process.execPath];
  const child = spawn(program as string, [...wrapperArgs, ...(setup.nodeArgs ?? []), BIN, ...args], {
    env: childEnv(setup),
    stdio: "pipe",
    ...(setup.cwd ? { cwd: setup.cwd } : {}),
  });
  let stdout = "";
  let stderr = "";
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const line = stdout.split("\n").find((l) => l !== "" && w.match(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    check();
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  if (setup.input !== undefined) child.stdin.end(setup.input);
  const done = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    stdout: () => stdout,
    waitForLine: (match) =>
      new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        check();
        void done.then((f) => reject(new Error(`keel exited (${f.code}) first. stderr: ${f.stderr}`)));
      }),
    done,
  };
}

export function runKeel(args: string[], setup: StartOptions): Promise<Finished> {
  return startKeel(args, setup).done;
}

/**
 * Every NDJSON line of a json or stream-json stdout, parsed, each one checked against the schema
 * the package ships (test/print-schema.ts): a line that does not match fails the test.
 */
export function lines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const value = JSON.parse(l) as Record<string, unknown>;
      assertValid(value);
      return value;
    });
}

/** The session files under KEEL_HOME (all cwd folders). */
export function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  let dirs: string[];
  try {
    dirs = readdirSync(root);
  } catch {
    return [];
  }
  return dirs.flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, d, f)),
  );
}

export function readText(path: string): string {
  return readFileSync(path, "utf8");
}

/** Polls `condition` every 10 ms until it holds (no fixed sleeps: the suite stays deterministic). */
export async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** stderr without web-search's one-time hint (a fresh Keel home has no search key configured). */
export const withoutSearchHint = (stderr: string): string =>
  stderr
    .split("\n")
    .filter((line) => !line.startsWith("keel: info: web-search: WebSearch is off"))
    .join("\n");
