// The tmux harness of the TUI tests: the BUILT keel bin in a real terminal, against a mock model
// server; keys go in with `tmux send-keys`, every assertion reads the captured screen, polled with
// generous deadlines (a loaded 2-core machine is slow), never after a fixed sleep.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { type MockServer, type Scenario, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll } from "vitest";
import { BIN, MODEL, type Workspace, workspace } from "./helpers.js";

export const tmuxMissing = spawnSync("tmux", ["-V"]).error !== undefined;

export interface Terminal {
  session: string;
  exitFile: string;
  /** Runs a tmux command against this test's own server. */
  tmux(...args: string[]): string;
  /** The visible screen; `history` adds the scrollback. */
  screen(history?: boolean): string;
  keys(...keys: string[]): void;
  /** Polls the screen until `expected` shows; fails with the screen it last saw. */
  waitFor(expected: string | RegExp, timeoutMs?: number): Promise<string>;
  waitGone(text: string, timeoutMs?: number): Promise<string>;
  /** Types literally, waits until the prompt box shows it, then presses the keys. */
  type(text: string, ...keys: string[]): Promise<void>;
  /** keel's exit code, once it exited. */
  exitCode(timeoutMs?: number): Promise<string>;
  kill(): void;
}

let counter = 0;

/** The direct children of a process (keel under the pane's shell). */
function childrenOf(pid: string): string[] {
  return spawnSync("pgrep", ["-P", pid], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((p) => /^\d+$/.test(p));
}

/** Blocks until none of `pids` is alive, or `timeoutMs` has passed (afterEach hooks are synchronous). */
function waitGone(pids: string[], timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  // A zombie (state Z, waiting for a parent to reap it) writes nothing any more.
  const alive = (pid: string) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  while (pids.some(alive) && Date.now() < deadline) Atomics.wait(nap, 0, 0, 20);
}

export interface LaunchOptions {
  server: MockServer;
  ws: Workspace;
  scenario: Scenario;
  args?: string;
  /** CI=true for keel, as CI runners set it. */
  ci?: boolean;
  width?: number;
  height?: number;
  /** Extra environment, as `NAME='value'` words. */
  env?: string;
  model?: string;
}

/** Starts keel in a fresh tmux server and session; its exit code lands in a file. */
export function launch(o: LaunchOptions): Terminal {
  o.server.setScenario(o.scenario);
  const n = ++counter;
  const session = `keel${n}`;
  const socket = `keel-tui-${process.pid}-${n}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const exitFile = `${o.ws.home}/${session}.exit`;
  const command = [
    "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CI -u CONTINUOUS_INTEGRATION",
    o.ci ? "CI=true" : "",
    `ANTHROPIC_BASE_URL='${o.server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test`,
    `HOME='${o.ws.user}' KEEL_HOME='${o.ws.home}' NO_PROXY=127.0.0.1`,
    o.env ?? "",
    `'${process.execPath}' '${BIN}' --cwd '${o.ws.repo}' --model ${o.model ?? MODEL} ${o.args ?? ""};`,
    `echo $? > '${exitFile}'; sleep 60`,
  ].join(" ");
  tmux(
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    String(o.width ?? 120),
    "-y",
    String(o.height ?? 40),
    command,
  );
  const screen = (history = false) =>
    history
      ? tmux("capture-pane", "-p", "-t", session, "-S", "-")
      : tmux("capture-pane", "-p", "-t", session);
  const waitFor = async (expected: string | RegExp, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = screen();
      if (typeof expected === "string" ? now.includes(expected) : expected.test(now)) return now;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(expected)}; the screen was:\n${now}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  };
  return {
    session,
    exitFile,
    tmux,
    screen,
    keys: (...keys) => void tmux("send-keys", "-t", session, ...keys),
    waitFor,
    async waitGone(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = screen();
        if (!now.includes(text)) return now;
        if (Date.now() > deadline) throw new Error(`"${text}" stayed on screen:\n${now}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    async type(text, ...keys) {
      tmux("send-keys", "-t", session, "-l", text);
      await waitFor(`› ${text}`);
      if (keys.length > 0) tmux("send-keys", "-t", session, ...keys);
    },
    async exitCode(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!existsSync(exitFile) || readFileSync(exitFile, "utf8").trim() === "") {
        if (Date.now() > deadline) throw new Error(`keel never exited; the screen was:\n${screen()}`);
        await new Promise((r) => setTimeout(r, 40));
      }
      return readFileSync(exitFile, "utf8").trim();
    },
    kill: () => {
      // The pane's shell and keel under it: a killed keel still writes (its compile cache, its
      // journal's end) on the way out, so wait until they are gone before anyone removes the folder.
      const pane = spawnSync("tmux", ["-L", socket, "display-message", "-p", "-t", session, "#{pane_pid}"], {
        encoding: "utf8",
      }).stdout.trim();
      const pids = /^\d+$/.test(pane) ? [pane, ...childrenOf(pane)] : [];
      spawnSync("tmux", ["-L", socket, "kill-server"]);
      waitGone(pids, 10_000);
    },
  };
}

export interface TerminalSuite {
  /** The mock model server, started before the file's tests. */
  readonly server: MockServer;
  /** A workspace removed once every keel of the file is gone (a killed one may still write). */
  fresh(): Workspace;
  /** keel in a terminal on the last fresh workspace, with the server's request log cleared. */
  start(o: Omit<LaunchOptions, "server" | "ws">): Terminal;
}

/** The set-up every tmux test file shares: one mock server, fresh workspaces, one terminal at a time. */
export function terminalSuite(): TerminalSuite {
  let server: MockServer | undefined;
  let ws: Workspace | undefined;
  let term: Terminal | undefined;
  const workspaces: Workspace[] = [];
  beforeAll(async () => {
    if (tmuxMissing) throw new Error("tmux is not installed: apt-get install -y tmux");
    server = await startMockServer();
  });
  afterEach(() => {
    term?.kill();
    term = undefined;
  });
  afterAll(async () => {
    await server?.close();
    for (const w of workspaces) w.dispose();
  });
  return {
    get server() {
      if (!server) throw new Error("the mock server starts in beforeAll");
      return server;
    },
    fresh() {
      ws = workspace();
      workspaces.push(ws);
      return ws;
    },
    start(o) {
      if (!server || !ws) throw new Error("call fresh() before start()");
      term?.kill();
      server.requests.length = 0;
      term = launch({ server, ws, ...o });
      return term;
    },
  };
}
