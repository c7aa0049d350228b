// Trust before spawn, through the built keel bin: a hostile untrusted project's MCP servers
// (`.mcp.json` and `.keel/config.json`) are not started in print mode nor in the TUI, while the
// user's own server is (the control); after /trust they start.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is what a project writes in .mcp.json, not a template
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, MODEL, runKeel, startKeel, type Workspace, workspace } from "./helpers.js";

const SERVER = fileURLToPath(new URL("./mcp-fixtures/marker-server.mjs", import.meta.url));
let server: MockServer;
let ws: Workspace;

beforeAll(async () => {
  // Slow answers (a second): MCP servers start once the first request is out, so a run must
  // last long enough for the user's own server (the control) to have started.
  server = await startMockServer({
    turns: [],
    fallback: { text: "ok ".repeat(100), chunkSize: 3, delayMs: 10 },
  });
});
afterAll(() => server?.close());
afterEach(() => ws?.dispose());

function readIfThere(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** Polls `condition` (bounded): for files a child process writes on its own schedule. */
async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not met within ${timeoutMs} ms: ${condition.toString()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const entry = (marker: string) => ({ command: process.execPath, args: [SERVER], env: { MARKER: marker } });

function hostile() {
  ws = workspace();
  const markers = {
    user: join(ws.home, "user-started"),
    mcpJson: join(ws.home, "mcp-json-started"),
    keel: join(ws.home, "keel-config-started"),
  };
  writeFileSync(
    join(ws.home, "config.json"),
    JSON.stringify({ extensions: { mcp: { config: { servers: { mine: entry(markers.user) } } } } }),
  );
  writeFileSync(join(ws.repo, ".mcp.json"), JSON.stringify({ mcpServers: { evil: entry(markers.mcpJson) } }));
  mkdirSync(join(ws.repo, ".keel"));
  writeFileSync(
    join(ws.repo, ".keel", "config.json"),
    JSON.stringify({ extensions: { mcp: { config: { servers: { evil_too: entry(markers.keel) } } } } }),
  );
  return markers;
}

describe("MCP servers and trust, through the keel bin", () => {
  it("print mode starts no server of an untrusted project, and starts them once trusted", async () => {
    const markers = hostile();
    // The model takes its time; keel is stopped (SIGTERM) once what the test waits for happened.
    const running = startKeel(["--cwd", ws.repo, "-p", "--model", MODEL, "hello"], { server, ws });
    // The control: the user's own server started and finished its handshake. Project servers,
    // had they been taken, would have been spawned in the same pass, first (by name).
    await until(() => readIfThere(join(ws.home, "data/mcp/logs/mine.log")).includes("connected over stdio"));
    expect(existsSync(markers.user)).toBe(true);
    expect(existsSync(markers.mcpJson)).toBe(false);
    expect(existsSync(markers.keel)).toBe(false);
    running.child.kill("SIGTERM");
    await running.done;

    expect((await runKeel(["--cwd", ws.repo, "-p", "/trust yes"], { server, ws })).code).toBe(0);
    const trusted = startKeel(["--cwd", ws.repo, "-p", "--model", MODEL, "hello"], { server, ws });
    await until(() => existsSync(markers.mcpJson) && existsSync(markers.keel));
    trusted.child.kill("SIGTERM");
    await trusted.done;
  });

  it("a server's header changed after trust: print mode says what changed and starts nothing; keel -p /trust shows the diff", async () => {
    const markers = hostile();
    const mcp = (headers: Record<string, string>) =>
      writeFileSync(
        join(ws.repo, ".mcp.json"),
        JSON.stringify({
          mcpServers: {
            evil: entry(markers.mcpJson),
            docs: { type: "http", url: "http://127.0.0.1:9/mcp", headers },
          },
        }),
      );
    mcp({ "X-Team": "core" });
    const shown = await runKeel(["--cwd", ws.repo, "-p", "/trust"], { server, ws });
    expect(shown.stdout).toContain("docs: connects to http://127.0.0.1:9/mcp sending headers X-Team: core");
    expect((await runKeel(["--cwd", ws.repo, "-p", "/trust yes"], { server, ws })).code).toBe(0);

    mcp({ "X-Team": "core", Authorization: "Bearer ${GITHUB_TOKEN}" });
    const run = await runKeel(["--cwd", ws.repo, "-p", "--model", MODEL, "hello"], { server, ws });
    expect(run.code, run.stderr).toBe(0);
    const diff = '~ .mcp.json server docs: headers.Authorization: (none) → "Bearer ${GITHUB_TOKEN}"';
    expect(run.stderr).toContain("changed since you trusted it");
    expect(run.stderr).toContain(diff);
    expect(existsSync(markers.mcpJson)).toBe(false);
    const again = await runKeel(["--cwd", ws.repo, "-p", "/trust"], { server, ws });
    expect(again.stdout).toContain(
      `${ws.repo} changed since you trusted it, in what it runs or widens automatically:`,
    );
    expect(again.stdout).toContain(diff);
    expect(again.stdout).toContain("Nothing was trusted.");
  });

  it("keel mcp add and list go through the bin; a project's servers are listed once it is trusted", async () => {
    const markers = hostile();
    const add = await runKeel(["mcp", "add", "extra", "--", process.execPath, SERVER], { ws, cwd: ws.repo });
    expect(add.code, add.stderr).toBe(0);
    const list = await runKeel(["mcp", "list"], { ws, cwd: ws.repo });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/extra \(user, stdio: .*\) — connected, 1 tools/);
    expect(list.stdout).toMatch(/mine \(user, stdio: .*\) — connected, 1 tools/);
    expect(list.stdout).not.toContain("evil");
    expect(existsSync(markers.mcpJson)).toBe(false);
    expect((await runKeel(["--cwd", ws.repo, "-p", "/trust yes"], { server, ws })).code).toBe(0);
    const trusted = await runKeel(["mcp", "list"], { ws, cwd: ws.repo });
    expect(trusted.stdout).toMatch(/evil \(project, stdio: .*\) — connected, 1 tools/);
    expect(existsSync(markers.mcpJson)).toBe(true);
  });

  it("print mode attaches an @server:uri resource named in the prompt, connecting the server for it", async () => {
    ws = workspace();
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: {
          mcp: {
            config: {
              servers: { notes: { command: process.execPath, args: [SERVER], env: { RESOURCES: "1" } } },
            },
          },
        },
      }),
    );
    const before = server.requests.length;
    const r = await runKeel(["-p", "--model", MODEL, "how do I restart? @notes:notes://team/runbook"], {
      server,
      ws,
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = server.requests.slice(before).find((q) => q.raw.includes("how do I restart"))!.raw;
    expect(sent).toContain('<mention ref=\\"@notes:notes://team/runbook\\">');
    expect(sent).toContain("Restart with make bounce.");
  });

  it("the TUI starts no server of an untrusted project until /trust", async () => {
    if (spawnSync("tmux", ["-V"]).error) throw new Error("tmux is not installed: apt-get install -y tmux");
    const markers = hostile();
    const socket = `keel-mcp-trust-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
    const screenShows = async (pattern: RegExp) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const screen = tmux("capture-pane", "-p", "-t", "keel");
        if (pattern.test(screen)) return screen;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${pattern}; the screen was:\n${screen}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    const command = [
      "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CI",
      `ANTHROPIC_BASE_URL='${server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test`,
      `HOME='${ws.user}' KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
      `'${process.execPath}' '${BIN}' --cwd '${ws.repo}' --model ${MODEL}; sleep 30`,
    ].join(" ");
    tmux("new-session", "-d", "-s", "keel", "-x", "120", "-y", "40", command);
    try {
      await screenShows(/mcp 1\/1/);
      expect(existsSync(markers.user)).toBe(true);
      expect(existsSync(markers.mcpJson)).toBe(false);
      expect(existsSync(markers.keel)).toBe(false);
      // Typed, seen in the prompt box, then entered (as a person would, and the TUI tests do).
      tmux("send-keys", "-t", "keel", "-l", "/trust");
      await screenShows(/› \/trust/);
      tmux("send-keys", "-t", "keel", "Enter");
      // /trust shows what trusting lets the project do, and asks.
      await screenShows(/Trust this project as it is now\?/);
      tmux("send-keys", "-t", "keel", "y");
      await screenShows(/mcp 3\/3/);
      expect(existsSync(markers.mcpJson)).toBe(true);
      expect(existsSync(markers.keel)).toBe(true);
      tmux("send-keys", "-t", "keel", "-l", "/quit");
      await screenShows(/› \/quit/);
      tmux("send-keys", "-t", "keel", "Enter");
      // keel has exited (the pane runs the sleep) before the workspace is removed.
      const deadline = Date.now() + 15_000;
      while (tmux("display-message", "-p", "-t", "keel", "#{pane_current_command}").trim() !== "sleep") {
        if (Date.now() > deadline) throw new Error("keel did not exit after /quit");
        await new Promise((r) => setTimeout(r, 40));
      }
    } finally {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    }
  }, 40_000);
});
