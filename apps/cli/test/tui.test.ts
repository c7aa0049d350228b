// The TUI end to end: the BUILT keel bin in a real terminal (tmux), against the mock model server.
// Keys go in with `tmux send-keys`; every assertion is on the captured screen text, polled.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type MockServer, type Scenario, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI_ROOT, type Workspace, workspace } from "./helpers.js";
import { launch as start, type Terminal, tmuxMissing } from "./tmux.js";
import { MARKER, scenario } from "./tui-fixtures/scenario.js";

const STATUS_EXTENSION = join(CLI_ROOT, "test/tui-fixtures/status-extension.ts");

let server: MockServer;
let ws: Workspace;
let term: Terminal | undefined;

/** keel in a fresh 120×40 terminal; `ci` sets CI=true for keel (the screen must be live either way). */
function launch(turns: Scenario, extraArgs = "", ci = false): Terminal {
  term = start({ server, ws, scenario: turns, args: extraArgs, ci });
  return term;
}

describe("keel TUI in tmux", () => {
  beforeAll(async () => {
    // Fail loudly: a skipped e2e would hide a broken TUI. CI installs tmux (apt-get install -y tmux).
    if (tmuxMissing) throw new Error("tmux is not installed: apt-get install -y tmux");
    server = await startMockServer();
    ws = workspace();
  });

  afterEach(() => {
    term?.kill();
    term = undefined;
  });

  afterAll(async () => {
    await server?.close();
    ws?.dispose();
  });

  it("streams, approves a Bash call, shows the todo widget, rewinds and quits with 0", async () => {
    const t = launch(scenario, `-e '${STATUS_EXTENSION}'`, true);
    await t.waitFor("/help for commands");
    await t.waitFor(/ready ·/);

    await t.type("say hello", "Enter");
    let now = await t.waitFor("• second item");
    expect(now).toContain("Hello from keel.");
    expect(now).toContain("Here is inline code and a list:");
    expect(now).not.toContain("**keel**");
    // An extension's status item joins the status line.
    await t.waitFor(/ready ·.*· runs: 1/);

    await t.type("make a marker file", "Enter");
    now = await t.waitFor("Allow Bash command?");
    // The whole command, as it will run.
    expect(now).toContain("$ touch marker.txt && echo made-the-marker");
    expect(now).toContain("[y] Allow once");
    expect(now).toContain("✓ UpdateTodos(2 items)");
    expect(now).toContain("▶ 1. Create the marker file");
    expect(now).toContain("○ 2. Report back");
    expect(now).toContain("✻ thought for");
    // Arrows move the choice, Enter takes it: → Always, ← back to Once.
    t.keys("Right", "Left", "Enter");
    now = await t.waitFor("✓ Bash(touch marker.txt && echo made-the-marker) · made-the-marker");
    now = await t.waitFor("All done.");
    now = await t.waitFor("▶ 2. Report back");
    expect(now).toContain("✓ 1. Create the marker file");
    expect(existsSync(join(ws.repo, MARKER))).toBe(true);
    await t.waitFor(/ready ·/);

    // Ctrl+O shows the last tool's full output, and hides it again.
    t.keys("C-o");
    now = await t.waitFor("(ctrl+o to hide)");
    expect(now).toContain("Todos updated: 1/2 done");
    t.keys("C-o");
    await t.waitGone("(ctrl+o to hide)");

    // Tab completes the command; /rewind puts the prompt back and the list goes back with it.
    await t.type("/rew", "Tab");
    await t.waitFor("› /rewind");
    t.keys("Enter");
    now = await t.waitFor("Rewound 1 prompt");
    expect(now).toMatch(/│ › make a marker file\s+│/);
    now = await t.waitGone("Report back");
    t.keys("C-u");
    await t.type("/todos", "Enter");
    await t.waitFor("No todos.");

    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("shows Claude Sonnet 5.5's notes between tool calls, which arrive as thinking blocks", async () => {
    const t = launch(
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
    await t.waitFor(/ready ·.*claude-sonnet-5-5/);
    await t.type("what is here?", "Enter");
    const now = await t.waitFor("The folder is listed.");
    expect(now).toContain("Let me list the folder first.");
    expect(now).toContain("✓ LS");
    // The up-front reasoning stays one line; only the note before the tool call is shown as text.
    expect(now).toContain("✻ thought for 22 chars");
    expect(now).not.toContain("Plan: list the folder.");
    // The mock returns thinking text only for a display that asks for it: Keel asked.
    expect(server.requests.at(-2)?.body.thinking).toMatchObject({ type: "adaptive", display: "summarized" });
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("asks a sub-agent's approval in the parent's dialog labelled with the agent, beside its widget; a background one wakes the idle session", async () => {
    // A child's first message is its task; the parent's later requests carry the task too, inside the call.
    const isChild = (r: { body: Record<string, unknown> }) =>
      JSON.stringify((r.body.messages as unknown[])[0]).includes("TASK:");
    let parentTurn = 0;
    let childTurn = 0;
    const t = launch({
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
    await t.waitFor(/ready ·/);
    await t.type("delegate the marker", "Enter");
    const now = await t.waitFor("[agent make the marker] Allow Bash command?");
    expect(now).toContain("$ touch child-marker.txt");
    // The tool is announced once approved; until then the widget says the child is working.
    expect(now).toMatch(/◆ make the marker · working · turn 1 · [\d.]+k tok · \$0\.\d{4}/);
    t.keys("Enter");
    await t.waitFor("The sub-agent made it.");
    expect(existsSync(join(ws.repo, "child-marker.txt"))).toBe(true);
    await t.waitGone("◆ make the marker");
    await t.type("/agents", "Enter");
    await t.waitFor(/Ended:\n\s+general-purpose-\S+\s+make the marker · completed/);
    // A background child that ends while the session is idle wakes it: the answer comes unasked.
    t.keys("C-u");
    await t.type("look around in the background", "Enter");
    await t.waitFor("It is looking; I will wait.");
    const woken = await t.waitFor("The background look found nothing unusual.");
    expect(woken).toMatch(/agent general-purpose-\S+ \(look around\) finished/);
    await t.waitFor(/ready ·/);
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("Enter steers and Alt+Enter queues a follow-up mid-run, Esc interrupts, and Ctrl+C twice mid-run exits with 130", async () => {
    const slow = (word: string) => ({
      text: `${word} ${"and on ".repeat(300)}`,
      chunkSize: 8,
      delayMs: 20,
    });
    const t = launch({ turns: [slow("Once upon a time"), slow("Twice upon a time")] });
    await t.waitFor(/ready ·/);

    await t.type("tell a long story", "Enter");
    await t.waitFor("Once upon a time");
    await t.waitFor("esc to interrupt");
    await t.type("be brief", "Enter");
    await t.waitFor("queued steering: be brief");
    await t.type("then summarize", "M-Enter");
    await t.waitFor("queued follow-up: then summarize");
    t.keys("Escape");
    await t.waitFor("Interrupted.");
    // The queued messages never reached the model, so they are back in the prompt.
    await t.waitFor(/│ › be brief\s+│\n│\s+then summarize\s+│/);
    await t.waitFor(/ready ·/);

    // Ctrl+U clears a line, then joins it with the one above: three presses empty two lines.
    t.keys("C-u", "C-u", "C-u");
    await t.waitFor("Ask keel…");
    await t.type("once more", "Enter");
    await t.waitFor("Twice upon a time");
    t.keys("C-c");
    await t.waitFor("Press Ctrl+C again to exit.");
    t.keys("C-c");
    expect(await t.exitCode()).toBe("130");
  }, 60_000);
});
