// Sessions in the TUI, in a real terminal (tmux): code rewind after a resume, /tree without the
// journal's internals, the resume picker's facts, the resume line on exit; and the screen bugs
// each with its test: a resize leaves one input box, the status line wraps (never cuts what it
// shows, never lets the terminal wrap it) at 80 and 120 columns, a clean
// Ctrl+C is no crash on the next resume, /compact prints once, --no-session claims no session.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockServer } from "@keel/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ROOT, MODEL, runKeel, sessionFiles, startKeel, until, type Workspace } from "./helpers.js";
import { terminalSuite } from "./tmux.js";

const STATUS_EXTENSION = join(CLI_ROOT, "test/tui-fixtures/status-extension.ts");

const suite = terminalSuite();
let server: MockServer;
let ws: Workspace;
const fresh = () => suite.fresh();
const start = suite.start;

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("keel TUI sessions and screen", () => {
  beforeAll(() => {
    server = suite.server;
  });

  it('/rewind "both" after a resume restores the two files Keel edited; exit says how to resume', async () => {
    ws = fresh();
    writeFileSync(join(ws.repo, "a.txt"), "alpha\n");
    writeFileSync(join(ws.repo, "b.txt"), "beta\n");
    let t = start({
      args: "--permission-mode acceptEdits",
      scenario: {
        turns: [
          {
            toolCalls: [
              { name: "Read", arguments: { path: "a.txt" } },
              { name: "Read", arguments: { path: "b.txt" } },
            ],
          },
          {
            toolCalls: [
              { name: "Edit", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
            ],
          },
          {
            toolCalls: [
              { name: "Edit", arguments: { path: "b.txt", old_string: "beta", new_string: "BETA" } },
            ],
          },
          { text: "Both files shout now." },
        ],
      },
    });
    await t.waitFor(/ready ·/);
    await t.type("shout both files", "Enter");
    await t.waitFor("Both files shout now.");
    expect(readFileSync(join(ws.repo, "a.txt"), "utf8")).toBe("ALPHA\n");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
    const exitScreen = await t.waitFor(/Resume this session with: keel -r [0-9a-f-]{36}/);
    const id = /keel -r ([0-9a-f-]{36})/.exec(exitScreen)![1]!;

    t = start({ args: `-r ${id}`, scenario: { turns: [] } });
    await t.waitFor(`Resumed session ${id}`);
    await t.waitFor(/ready ·/);
    await t.type("/rewind", "Enter");
    let now = await t.waitFor("Keel changed 2 file(s) since then. Restore which?");
    expect(now).toContain("conversation and code");
    expect(now).toContain("restore a.txt, restore b.txt");
    t.keys("Enter");
    now = await t.waitFor("Restored a.txt, b.txt.");
    await t.waitFor("Rewound 1 prompt; the prompt is back in the input.");
    expect(readFileSync(join(ws.repo, "a.txt"), "utf8")).toBe("alpha\n");
    expect(readFileSync(join(ws.repo, "b.txt"), "utf8")).toBe("beta\n");
    await t.waitFor(/│ › shout both files\s+│/);
    t.keys("C-u");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 90_000);

  it("a resize from 120 to 70 to 120 columns leaves exactly one input box, on screen and in the scrollback", async () => {
    ws = fresh();
    const t = start({
      ci: true,
      scenario: { turns: [{ text: `A reply ${"that wraps at seventy columns ".repeat(4)}` }] },
    });
    await t.waitFor(/ready ·/);
    await t.type("say something long", "Enter");
    await t.waitFor(/ready ·/);
    await t.waitFor("that wraps");
    t.tmux("resize-window", "-t", t.session, "-x", "70", "-y", "40");
    await t.waitFor(new RegExp(`╰${"─".repeat(68)}╯`));
    t.tmux("resize-window", "-t", t.session, "-x", "120", "-y", "40");
    // The redraw at 120 columns: the input box's border is full width again, and screen and
    // scrollback hold one copy of everything (before the fix, broken copies stayed for good).
    const deadline = Date.now() + 15_000;
    let all = "";
    for (;;) {
      all = t.screen(true);
      const settled =
        new RegExp(`╰${"─".repeat(118)}╯`).test(all) &&
        count(all, "Ask keel…") === 1 &&
        count(all, "╭") === 1 &&
        count(all, "› say something long") === 1;
      if (settled) break;
      if (Date.now() > deadline) throw new Error(`the screen kept more than one input box:\n${all}`);
      await new Promise((r) => setTimeout(r, 40));
    }
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  for (const width of [80, 120]) {
    it(`at ${width} columns the status line wraps: cost, context and an extension's item all show`, async () => {
      ws = fresh();
      const t = start({
        width,
        // acceptEdits: the mode's label is the longest of the default cycle.
        args: `-e '${STATUS_EXTENSION}' --permission-mode acceptEdits`,
        scenario: { turns: [{ text: "Counted." }] },
      });
      await t.waitFor(/⏵ acceptEdits/);
      await t.type("count", "Enter");
      await t.waitFor("Counted.");
      // The extension's item comes at runEnd, a moment before the run is over: wait for both.
      const now = await t.waitFor(/ready · \/help[\s\S]*runs: 1/);
      const lines = now.replace(/\s+$/, "").split("\n");
      // Below the input box's bottom border: the status rows, none of them wider than the terminal.
      const border = lines.findLastIndex((l) => /^╰─+╯$/.test(l));
      const status = lines.slice(border + 1);
      expect(status[0]).toMatch(/^ready · \/help +⏵ acceptEdits \(shift\+tab\)/);
      expect(status.length).toBeGreaterThan(1);
      expect(status.length).toBeLessThanOrEqual(3);
      for (const row of status) expect(row.length).toBeLessThan(width);
      const all = status.join("\n");
      expect(all).toContain("anthropic/claude-sonnet-4-6");
      expect(all).toMatch(/\$\d+\.\d{4}/);
      expect(all).toMatch(/ctx \d+(\.\d+)?%/);
      expect(all).toContain("runs: 1");
      expect(all).not.toContain("…");
      await t.type("/quit", "Enter");
      expect(await t.exitCode()).toBe("0");
    }, 60_000);
  }

  it("a clean Ctrl+C mid-reply is not reported as a crash on the next resume", async () => {
    ws = fresh();
    const t = start({
      scenario: {
        turns: [
          {
            text: "Let me run it.",
            toolCalls: [{ name: "Bash", arguments: { command: `echo ${"x".repeat(2000)}` } }],
            chunkSize: 4,
            delayMs: 15,
          },
        ],
      },
    });
    await t.waitFor(/ready ·/);
    await t.type("run the long thing", "Enter");
    // Interrupt while the tool call streams: the journal's checkpoint shows its partial call.
    await until(
      () => sessionFiles(ws.home).some((f) => readFileSync(f, "utf8").includes('"type":"toolCall"')),
      "the tool call to start streaming",
    );
    t.keys("C-c");
    await t.waitFor("Press Ctrl+C again to exit.");
    t.keys("C-c");
    expect(await t.exitCode()).toBe("130");
    server.setScenario({ turns: [{ text: "Back again." }] });
    const resumed = await runKeel(["-p", "-c", "--model", MODEL, "--cwd", ws.repo, "carry on"], {
      server,
      ws,
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).not.toContain("stopped unexpectedly");
    expect(server.requests.at(-1)!.raw).not.toContain("never started");
  }, 60_000);

  it("/compact says its result once, and on a short conversation that there is nothing to compact", async () => {
    ws = fresh();
    const long = "Some detail worth keeping in mind for later. ".repeat(12);
    const t = start({
      scenario: {
        turns: [
          { text: "Hello there." },
          { text: `Noted. ${long}` },
          { text: `Fine. ${long}` },
          { text: "## Goal\nGreet\n## Progress\n### Done\n- greeted\n## Next steps\n- none" },
        ],
      },
    });
    await t.waitFor(/ready ·/);
    await t.type("hello", "Enter");
    await t.waitFor("Hello there.");
    // One short exchange: a summary could only be larger than it.
    await t.type("/compact", "Enter");
    await t.waitFor("Nothing to compact: the conversation is too short");
    expect(t.screen(true)).not.toMatch(/Compact(ed|ing)/);
    await t.type("remember this", "Enter");
    await t.waitFor("Noted.");
    await t.type("ok", "Enter");
    await t.waitFor("Fine.");
    await t.type("/compact", "Enter");
    await t.waitFor(/Compacted:? ~\d+ → ~\d+ tokens/);
    await t.waitFor(/ready ·/);
    // The compaction's own line is the one report: not a second from the command.
    await t.type("/session", "Enter");
    await t.waitFor("Session: ");
    expect(count(t.screen(true), "Compacted")).toBe(1);
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("/tree shows prompts, replies and calls without journal internals unless asked", async () => {
    ws = fresh();
    const t = start({
      args: "--permission-mode acceptEdits",
      scenario: {
        turns: [
          { toolCalls: [{ name: "Write", arguments: { path: "n.txt", content: "n" } }] },
          { text: "Wrote n.txt." },
        ],
      },
    });
    await t.waitFor(/ready ·/);
    await t.type("write n", "Enter");
    await t.waitFor("Wrote n.txt.");
    await t.type("/tree", "Enter");
    let now = await t.waitFor("Continue from which entry?");
    expect(now).toContain("user: write n");
    expect(now).toContain("assistant: ● Write(n.txt)");
    expect(now).not.toContain("op_begin");
    expect(now).not.toContain("model → ");
    t.keys("Escape");
    await t.waitGone("Continue from which entry?");
    await t.type("/tree all", "Enter");
    now = await t.waitFor("(every journal entry)");
    expect(now).toContain("op_begin");
    t.keys("Escape");
    await t.waitGone("(every journal entry)");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("the resume picker shows date, first prompt, message count, cost and marks forks", async () => {
    ws = fresh();
    server.setScenario({ turns: [{ text: "first answer" }, { text: "fork answer" }] });
    const first = await runKeel(
      ["-p", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo, "the original question"],
      { server, ws },
    );
    expect(first.code).toBe(0);
    const forked = await runKeel(
      ["-p", "-c", "--fork", "--model", MODEL, "--cwd", ws.repo, "a forked question"],
      {
        server,
        ws,
      },
    );
    expect(forked.code).toBe(0);
    const originalId = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    const t = start({ args: "-r", scenario: { turns: [] } });
    const now = await t.waitFor("Resume which session?");
    expect(now).toContain(`↳ fork of ${originalId.slice(0, 8)}: the original question`);
    expect(now).toMatch(
      /the original question\s+\d{4}-\d\d-\d\d \d\d:\d\d \(.+ ago\) · 2 messages · \$\d+\.\d{4}/,
    );
    expect(now).toMatch(/4 messages · \$\d+\.\d{4}/);
    t.keys("Escape");
    await t.waitFor(/ready ·/);
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 60_000);

  it("--no-session names no session: not in the banner, not on exit", async () => {
    ws = fresh();
    const t = start({ args: "--no-session", scenario: { turns: [{ text: "Nothing kept." }] } });
    await t.waitFor("not saved (--no-session)");
    await t.type("hello", "Enter");
    await t.waitFor("Nothing kept.");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
    expect(t.screen(true)).not.toContain("Resume this session");
    expect(t.screen(true)).not.toMatch(/session [0-9a-f]{8}/);
  }, 60_000);

  it("-r <id> of a session another keel holds says how to look at that session, not the newest", async () => {
    ws = fresh();
    server.setScenario({ turns: [{ text: "first" }, { text: "second" }] });
    const first = await runKeel(
      ["-p", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo, "hello"],
      {
        server,
        ws,
      },
    );
    expect(first.code).toBe(0);
    const id = String(JSON.parse(first.stdout).sessionId).slice(0, 8);
    // A second session, newer: `-c` would take it, so the hint must name the one asked for.
    expect((await runKeel(["-p", "--model", MODEL, "--cwd", ws.repo, "other"], { server, ws })).code).toBe(0);
    // A slow reply keeps the first session locked by a print-mode keel while the TUI tries it.
    const slow = { turns: [], fallback: { text: "slow ".repeat(400), chunkSize: 5, delayMs: 20 } };
    server.setScenario(slow);
    // The holder has the session locked once its own request arrives (the two runs above made
    // requests already: counting from zero let the TUI start before the lock on a busy machine).
    const before = server.requests.length;
    const holder = startKeel(["-p", "--model", MODEL, "--cwd", ws.repo, "-r", id, "go on"], { server, ws });
    await until(() => server.requests.length > before, "the holder's request");
    const t = start({ args: `-r ${id}`, scenario: slow });
    expect(await t.exitCode()).not.toBe("0");
    const screen = t.screen(true).replace(/\s+/g, " ");
    expect(screen).toContain(`keel -r ${id} --read-only`);
    expect(screen).not.toContain("keel -c --read-only");
    holder.child.kill("SIGTERM");
    await holder.done;
  }, 60_000);
});
