// The TUI end to end: the BUILT keel bin in a real terminal (tmux), against the mock model server.
// Keys go in with `tmux send-keys`; every assertion is on the captured screen text, polled.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type MockServer, type Scenario, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, CLI_ROOT, MODEL, type Workspace, workspace } from "./helpers.js";
import { MARKER, scenario } from "./tui-fixtures/scenario.js";

const tmuxMissing = spawnSync("tmux", ["-V"]).error !== undefined;
// One tmux server per test (its own socket), so a server shutting down never meets the next test.
let socket = "";

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
}

const screen = (session: string) => tmux("capture-pane", "-p", "-t", session);

/** Polls the screen until `expected` shows; fails with the screen it last saw. */
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

async function waitGone(session: string, text: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = screen(session);
    if (!now.includes(text)) return now;
    if (Date.now() > deadline) throw new Error(`"${text}" stayed on screen:\n${now}`);
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

/** Types literally, waits until the prompt box shows it, then presses the keys. */
async function type(session: string, text: string, ...keys: string[]): Promise<void> {
  tmux("send-keys", "-t", session, "-l", text);
  await waitFor(session, `› ${text}`);
  if (keys.length > 0) tmux("send-keys", "-t", session, ...keys);
}

const STATUS_EXTENSION = join(CLI_ROOT, "test/tui-fixtures/status-extension.ts");

let server: MockServer;
let ws: Workspace;
let counter = 0;

/**
 * Starts keel in a fresh 120×40 tmux session; its exit code lands in the returned file.
 * `ci` sets CI=true for keel (as CI runners do), otherwise CI is unset: the screen must be
 * live either way.
 */
function launch(turns: Scenario, extraArgs = "", ci = false): { session: string; exitFile: string } {
  server.setScenario(turns);
  const session = `keel${++counter}`;
  socket = `keel-tui-test-${process.pid}-${counter}`;
  const exitFile = join(ws.home, `${session}.exit`);
  const command = [
    "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CI -u CONTINUOUS_INTEGRATION",
    ci ? "CI=true" : "",
    `ANTHROPIC_BASE_URL='${server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test`,
    `KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
    `'${process.execPath}' '${BIN}' --cwd '${ws.repo}' --model ${MODEL} ${extraArgs};`,
    `echo $? > '${exitFile}'; sleep 30`,
  ].join(" ");
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command);
  return { session, exitFile };
}

describe("keel TUI in tmux", () => {
  beforeAll(async () => {
    // Fail loudly: a skipped e2e would hide a broken TUI. CI installs tmux (apt-get install -y tmux).
    if (tmuxMissing) throw new Error("tmux is not installed: apt-get install -y tmux");
    server = await startMockServer();
    ws = workspace();
  });

  afterEach(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });

  afterAll(async () => {
    await server?.close();
    ws?.dispose();
  });

  it("streams, approves a Bash call, shows the todo widget, rewinds and quits with 0", async () => {
    const { session, exitFile } = launch(scenario, `-e '${STATUS_EXTENSION}'`, true);
    await waitFor(session, "/help for commands");
    await waitFor(session, /ready ·/);

    await type(session, "say hello", "Enter");
    let now = await waitFor(session, "• second item");
    expect(now).toContain("Hello from keel.");
    expect(now).toContain("Here is inline code and a list:");
    expect(now).not.toContain("**keel**");
    // An extension's status item joins the status line.
    await waitFor(session, /ready ·.*· runs: 1/);

    await type(session, "make a marker file", "Enter");
    now = await waitFor(session, "Allow Bash?");
    expect(now).toContain("Bash(touch marker.txt && echo made-the-marker)");
    expect(now).toContain("[y] Allow once");
    expect(now).toContain("✓ UpdateTodos(2 items)");
    expect(now).toContain("▶ 1. Create the marker file");
    expect(now).toContain("○ 2. Report back");
    expect(now).toContain("✻ thought for");
    // Arrows move the choice, Enter takes it: → Always, ← back to Once.
    tmux("send-keys", "-t", session, "Right", "Left", "Enter");
    now = await waitFor(session, "✓ Bash(touch marker.txt && echo made-the-marker) · made-the-marker");
    now = await waitFor(session, "All done.");
    now = await waitFor(session, "▶ 2. Report back");
    expect(now).toContain("✓ 1. Create the marker file");
    expect(existsSync(join(ws.repo, MARKER))).toBe(true);
    await waitFor(session, /ready ·/);

    // Ctrl+O shows the last tool's full output, and hides it again.
    tmux("send-keys", "-t", session, "C-o");
    now = await waitFor(session, "(ctrl+o to hide)");
    expect(now).toContain("Todos updated: 1/2 done");
    tmux("send-keys", "-t", session, "C-o");
    await waitGone(session, "(ctrl+o to hide)");

    // Tab completes the command; /rewind puts the prompt back and the list goes back with it.
    await type(session, "/rew", "Tab");
    await waitFor(session, "› /rewind");
    tmux("send-keys", "-t", session, "Enter");
    now = await waitFor(session, "Rewound 1 prompt");
    expect(now).toMatch(/│ › make a marker file\s+│/);
    now = await waitGone(session, "Report back");
    tmux("send-keys", "-t", session, "C-u");
    await type(session, "/todos", "Enter");
    await waitFor(session, "No todos.");

    await type(session, "/quit", "Enter");
    expect(await waitForFile(exitFile)).toBe("0");
  }, 30_000);

  it("shows Claude Sonnet 5.5's notes between tool calls, which arrive as thinking blocks", async () => {
    const { session, exitFile } = launch(
      {
        turns: [
          {
            thinking: "Plan: list the folder.",
            text: "Let me list the folder first.",
            toolCalls: [{ name: "LS", arguments: {} }],
          },
          { text: "The folder is listed." },
        ],
      },
      "--model anthropic/claude-sonnet-5-5",
    );
    await waitFor(session, /ready ·.*claude-sonnet-5-5/);
    await type(session, "what is here?", "Enter");
    const now = await waitFor(session, "The folder is listed.");
    expect(now).toContain("Let me list the folder first.");
    expect(now).toContain("✓ LS");
    // The up-front reasoning stays one line; only the note before the tool call is shown as text.
    expect(now).toContain("✻ thought for 22 chars");
    expect(now).not.toContain("Plan: list the folder.");
    // The mock returns thinking text only for a display that asks for it: Keel asked.
    expect(server.requests.at(-2)?.body.thinking).toMatchObject({ type: "adaptive", display: "summarized" });
    await type(session, "/quit", "Enter");
    expect(await waitForFile(exitFile)).toBe("0");
  }, 30_000);

  it("asks a sub-agent's approval in the parent's dialog labelled with the agent, beside its widget; a background one wakes the idle session", async () => {
    // A child's first message is its task; the parent's later requests carry the task too, inside the call.
    const isChild = (r: { body: Record<string, unknown> }) =>
      JSON.stringify((r.body.messages as unknown[])[0]).includes("TASK:");
    let parentTurn = 0;
    let childTurn = 0;
    const { session, exitFile } = launch({
      turns: [],
      fallback: (r) => {
        if (isChild(r)) {
          if (JSON.stringify(r.body.messages).includes("TASK: look around"))
            return { text: "Nothing unusual.", headerDelayMs: 300 };
          return childTurn++ === 0
            ? { toolCalls: [{ name: "Bash", arguments: { command: "touch child-marker.txt" } }] }
            : { text: "Made the marker." };
        }
        const spawnCall = (description: string, prompt: string, background = false) => ({
          toolCalls: [
            { name: "SpawnAgent", arguments: { description, prompt, run_in_background: background } },
          ],
        });
        switch (parentTurn++) {
          case 0:
            return spawnCall("make the marker", "TASK: touch child-marker.txt");
          case 1:
            return { text: "The sub-agent made it." };
          case 2:
            return spawnCall("look around", "TASK: look around", true);
          case 3:
            return { text: "It is looking; I will wait." };
          default:
            return { text: "The background look found nothing unusual." };
        }
      },
    });
    await waitFor(session, /ready ·/);
    await type(session, "delegate the marker", "Enter");
    const now = await waitFor(session, "[agent make the marker] Allow Bash?");
    expect(now).toContain("Bash(touch child-marker.txt)");
    // The tool is announced once approved; until then the widget says the child is working.
    expect(now).toMatch(/◆ make the marker · working · turn 1 · [\d.]+k tok · \$0\.\d{4}/);
    tmux("send-keys", "-t", session, "Enter");
    await waitFor(session, "The sub-agent made it.");
    expect(existsSync(join(ws.repo, "child-marker.txt"))).toBe(true);
    await waitGone(session, "◆ make the marker");
    await type(session, "/agents", "Enter");
    await waitFor(session, /Ended:\n\s+general-purpose-\S+\s+make the marker · completed/);
    // A background child that ends while the session is idle wakes it: the answer comes unasked.
    tmux("send-keys", "-t", session, "C-u");
    await type(session, "look around in the background", "Enter");
    await waitFor(session, "It is looking; I will wait.");
    const woken = await waitFor(session, "The background look found nothing unusual.");
    expect(woken).toMatch(/agent general-purpose-\S+ \(look around\) finished/);
    await waitFor(session, /ready ·/);
    await type(session, "/quit", "Enter");
    expect(await waitForFile(exitFile)).toBe("0");
  }, 30_000);

  it("Enter steers and Alt+Enter queues a follow-up mid-run, Esc interrupts, and Ctrl+C twice mid-run exits with 130", async () => {
    const slow = (word: string) => ({
      text: `${word} ${"and on ".repeat(300)}`,
      chunkSize: 8,
      delayMs: 20,
    });
    const { session, exitFile } = launch({ turns: [slow("Once upon a time"), slow("Twice upon a time")] });
    await waitFor(session, /ready ·/);

    await type(session, "tell a long story", "Enter");
    await waitFor(session, "Once upon a time");
    await waitFor(session, "esc to interrupt");
    await type(session, "be brief", "Enter");
    await waitFor(session, "queued steering: be brief");
    await type(session, "then summarize", "M-Enter");
    await waitFor(session, "queued follow-up: then summarize");
    tmux("send-keys", "-t", session, "Escape");
    await waitFor(session, "Interrupted.");
    // The queued messages never reached the model, so they are back in the prompt.
    await waitFor(session, /│ › be brief\s+│\n│\s+then summarize\s+│/);
    await waitFor(session, /ready ·/);

    // Ctrl+U clears a line, then joins it with the one above: three presses empty two lines.
    tmux("send-keys", "-t", session, "C-u", "C-u", "C-u");
    await waitFor(session, "Ask keel…");
    await type(session, "once more", "Enter");
    await waitFor(session, "Twice upon a time");
    tmux("send-keys", "-t", session, "C-c");
    await waitFor(session, "Press Ctrl+C again to exit.");
    tmux("send-keys", "-t", session, "C-c");
    expect(await waitForFile(exitFile)).toBe("130");
  }, 30_000);
});
