// Claude Code's custom slash commands work in Keel as they are: the fixture in
// fixtures/claude-commands (written after Claude Code's documentation) is read once the project is
// trusted, and `keel -p "/review src/a.ts fast"` sends the expanded prompt (arguments, the file it
// references); a `` !`cmd` `` line runs as a real child process through the sandbox and the gate,
// the file's allowed-tools letting it and the model's matching Bash call run for that command only;
// a per-command model; a name Keel holds gives way to /project:<name> with one notice; the user's
// ~/.claude/commands (a temporary HOME) come first and can be turned off; /help lists them all.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { trustProject } from "@keel/coding-agent";
import type { RecordedRequest } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";
import { terminalSuite } from "./tmux.js";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "claude-commands");
const { fresh } = mockSuite({ text: "fallback" });

type Json = Record<string, unknown>;
const userTexts = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.messages ?? []) as Json[])
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : (m.content as Json[]).flatMap((b) => (typeof b.text === "string" ? [b.text] : [])),
    );

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/** A user home of the test's own (the real ~/.claude is never read), with user command files. */
function fakeHome(files: Record<string, string> = {}): string {
  const home = mkdtempSync(join(tmpdir(), "keel-cmd-home-"));
  homes.push(home);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return home;
}

function project(turns: Parameters<typeof fresh>[0]) {
  const { server, ws } = fresh(turns);
  cpSync(FIXTURE, ws.repo, { recursive: true });
  return { server, ws };
}

function keelIn(ws: Workspace, server: ReturnType<typeof fresh>["server"], home: string) {
  return (...args: string[]) =>
    runKeel([...args, "--model", MODEL, "--cwd", ws.repo], { server, ws, cwd: ws.repo, env: { HOME: home } });
}

const trust = (ws: Workspace) => {
  const done = trustProject(ws.repo, { home: ws.home });
  if (done.isErr()) throw new Error(done.error.message);
};

describe("Claude Code custom commands in print mode", () => {
  it("/review src/a.ts fast sends the expanded prompt with the referenced file; nothing is read untrusted", async () => {
    const { server, ws } = project([{ text: "Reviewed." }]);
    const keel = keelIn(ws, server, fakeHome());

    // Untrusted: the project's command files are not read, so /review is no command.
    const before = await keel("-p", "/review src/a.ts fast");
    expect(before.code).toBe(2);
    expect(before.stderr).toContain("Unknown command /review.");
    expect(server.requests).toHaveLength(0);

    // What trusting would let the command files do is shown before the user decides.
    const preview = await keel("-p", "/trust");
    expect(preview.stdout).toContain(
      ".claude/commands/stamp.md (allowed-tools, run without asking when used: Bash(node scripts/stamp.mjs:*))",
    );
    expect(preview.stdout).toContain(".claude/commands/frontend/component.md");
    trust(ws);
    const ran = await keel("-p", "/review src/a.ts fast");
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.trim()).toBe("Reviewed.");
    const texts = userTexts(server.requests[0]);
    expect(texts[0]).toBe(
      "Please review @src/a.ts and take a fast pass over it.\nPoint out bugs first, then anything hard to read.",
    );
    // The @file reference: its content goes with the prompt.
    expect(texts[1]).toBe(
      '<file path="src/a.ts">\nexport const answer = (n: number) => n * 42; // the review target\n</file>',
    );
    // No rename happened to /review, and no file was bad: no warning.
    expect(ran.stderr).not.toContain("warning:");
  });

  it("a !`cmd` line runs through the sandbox with the file's allowed-tools, which let the model's matching Bash call run for that command only", async () => {
    const { server, ws } = project([
      { toolCalls: [{ name: "Bash", arguments: { command: "node scripts/stamp.mjs again" } }] },
      { text: "Stamped twice." },
      { toolCalls: [{ name: "Bash", arguments: { command: "node scripts/stamp.mjs uninvited" } }] },
      { text: "Could not." },
    ]);
    trust(ws);
    const keel = keelIn(ws, server, fakeHome());
    const ran = await keel("-p", "/stamp release");
    expect(ran.code, ran.stderr).toBe(0);
    // The line ran first (a real child process), its output inlined; then the model's call ran unasked.
    expect(userTexts(server.requests[0])[0]).toBe(
      "The stamp script said:\nstamped release\n\nRun `node scripts/stamp.mjs again` yourself, then tell me what changed.",
    );
    expect(readFileSync(join(ws.repo, "stamp.txt"), "utf8")).toBe("release\nagain\n");
    expect(ran.stderr).toContain(
      "Allowed until this run ends (the command's allowed-tools): Bash(node scripts/stamp.mjs:*)",
    );

    // A plain prompt: the same call is asked about, which print mode denies.
    const plain = await keel("-p", "stamp it");
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain("keel: denied Bash (node scripts/stamp.mjs uninvited)");
    expect(readFileSync(join(ws.repo, "stamp.txt"), "utf8")).toBe("release\nagain\n");
  });

  it("a !`cmd` line the rules do not allow is not run, and nothing is sent", async () => {
    const { server, ws } = project([]);
    trust(ws);
    const home = fakeHome({
      ".claude/commands/peek.md":
        "---\ndescription: Peek without permission\n---\n!`node scripts/stamp.mjs peek`\n",
    });
    const ran = await keelIn(ws, server, home)("-p", "/peek");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("/peek: its line !`node scripts/stamp.mjs peek` did not run");
    expect(existsSync(join(ws.repo, "stamp.txt"))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it("runs a command on its own model; an unknown model is a warning and the session's model runs it", async () => {
    const { server, ws } = project([{ text: "Short." }, { text: "Hello." }, { text: "Plain." }]);
    trust(ws);
    const keel = keelIn(ws, server, fakeHome());
    const quick = await keel("-p", "/quick why is the sky blue");
    expect(quick.code, quick.stderr).toBe(0);
    expect(server.requests[0]?.body.model).toBe("claude-haiku-4-5");
    expect(userTexts(server.requests[0])[0]).toBe("In two sentences at most: why is the sky blue");

    const mystery = await keel("-p", "/mystery");
    expect(mystery.code, mystery.stderr).toBe(0);
    expect(mystery.stderr).toMatch(
      /warning: This prompt asked for the model "nowhere\/no-such-model", which Keel cannot use .*; it runs on anthropic\/claude-sonnet-4-6\./,
    );
    expect(server.requests[1]?.body.model).toBe("claude-sonnet-4-6");
    // The session is back on its own model for the next prompt.
    await keel("-p", "--continue", "and now?");
    expect(server.requests[2]?.body.model).toBe("claude-sonnet-4-6");
  });

  it("/help lists them with hint and origin; Keel's /init keeps its name and the file's answers to /project:init, said once; the user's files come first", async () => {
    const { server, ws } = project([{ text: "Checklist." }, { text: "User's." }]);
    trust(ws);
    const home = fakeHome({
      ".claude/commands/standup.md": "Summarise what I did yesterday.",
      ".claude/commands/component.md": "---\ndescription: My own component sketch\n---\nSketch $1 my way.",
    });
    const keel = keelIn(ws, server, home);
    const help = await keel("-p", "/help");
    expect(help.code, help.stderr).toBe(0);
    const lines = help.stdout.split("\n");
    expect(lines).toContain("/review [file] [pace] — Review one file with the given pace (project)");
    expect(lines).toContain("/standup — Summarise what I did yesterday. (user)");
    // The user's /component comes first (Claude Code: personal over project); the project's keeps its full name.
    expect(lines).toContain("/component — My own component sketch (user)");
    expect(lines).toContain(
      "/project:frontend:component — Sketch a UI component named after the first argument (project:frontend)",
    );
    expect(lines).toContain("/init — Look at the project and write an AGENTS.md for it");
    expect(lines).toContain("/project:init — This project's own set-up checklist (project)");
    const notices = help.stderr.split("\n").filter((l) => l.includes("answer to their full name"));
    expect(notices).toEqual([
      "keel: info: Command files whose name is taken answer to their full name: /project:init (.claude/commands/init.md; /init is Keel's own), /project:frontend:component (.claude/commands/frontend/component.md; /component is ~/.claude/commands/component.md).",
    ]);

    const init = await keel("-p", "/project:init");
    expect(init.code, init.stderr).toBe(0);
    expect(userTexts(server.requests[0])[0]).toBe(
      "Walk me through this project's set-up checklist in CONTRIBUTING order.",
    );
    const mine = await keel("-p", "/component Button");
    expect(mine.code, mine.stderr).toBe(0);
    expect(userTexts(server.requests[1])[0]).toBe("Sketch Button my way.");

    // claude.userFiles: false, and ~/.claude is not read.
    writeFileSync(join(ws.home, "config.json"), JSON.stringify({ claude: { userFiles: false } }));
    const off = await keel("-p", "/help");
    expect(off.stdout).not.toContain("/standup");
    expect(off.stdout).toContain(
      "/component — Sketch a UI component named after the first argument (project:frontend)",
    );
  });

  it("a changed allowed-tools asks for trust again; a bad file is one warning and Keel starts", async () => {
    const { server, ws } = project([{ text: "Fine." }]);
    trust(ws);
    const keel = keelIn(ws, server, fakeHome());
    writeFileSync(
      join(ws.repo, ".claude", "commands", "broken.md"),
      "---\ndescription: [unclosed\n---\nBody.",
    );
    writeFileSync(
      join(ws.repo, ".claude", "commands", "stamp.md"),
      readFileSync(join(FIXTURE, ".claude", "commands", "stamp.md"), "utf8").replace(
        "Bash(node scripts/stamp.mjs:*)",
        "Bash(node:*)",
      ),
    );
    const ran = await keel("-p", "/review src/a.ts quick");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("what it runs or widens automatically changed since you trusted it");
    expect(ran.stderr).toContain("command .claude/commands/stamp.md allowed-tools");
    trust(ws);
    const again = await keel("-p", "/review src/a.ts quick");
    expect(again.code, again.stderr).toBe(0);
    const warnings = again.stderr.split("\n").filter((l) => l.startsWith("keel: warning:"));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^keel: warning: \.claude\/commands\/broken\.md: .*fix its front matter to use it$/,
      ),
    ]);
  });
});

describe("Claude Code custom commands in the TUI", () => {
  const suite = terminalSuite();
  it("completion offers a project's command with its hint and origin", async () => {
    const ws = suite.fresh();
    cpSync(FIXTURE, ws.repo, { recursive: true });
    trust(ws);
    const t = suite.start({ scenario: { turns: [] }, env: `HOME='${fakeHome()}'` });
    await t.waitFor(/ready ·/);
    await t.type("/rev");
    const menu = await t.waitFor("/review [file] [pace]");
    expect(menu).toContain("Review one file with the given pace (project)");
  });
});
