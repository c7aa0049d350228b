// Sessions that cannot simply be continued are reported, never reinterpreted: a read-only
// journal refuses a prompt (exit 2, with the --fork way on) and journals nothing; --read-only
// shows a session, even one another keel holds; a duplicated last line and an empty newest
// file are named; a lock left by a pid that now belongs to another program is taken over.
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  lines,
  MODEL,
  mockSuite,
  runKeel,
  sessionFiles,
  startKeel,
  until,
  type Workspace,
} from "./helpers.js";

const { fresh } = mockSuite({ text: "fallback" });

const args = (ws: Workspace, ...more: string[]) => ["--model", MODEL, "--cwd", ws.repo, ...more];

/** A first session with one exchange; returns its file. */
async function firstSession(ws: Workspace, server: Parameters<typeof runKeel>[1]["server"]): Promise<string> {
  const first = await runKeel(args(ws, "-p", "first prompt"), { server, ws });
  expect(first.code).toBe(0);
  const [file] = sessionFiles(ws.home);
  return file!;
}

describe("a journal that opens read-only", () => {
  it("refuses a new prompt with exit 2, sends and journals nothing, and says how to go on", async () => {
    const { server, ws } = fresh([{ text: "one" }]);
    const file = await firstSession(ws, server);
    appendFileSync(
      file,
      `${JSON.stringify({ type: "from_a_newer_keel", id: "zzzzzzzzzz", parentId: null, timestamp: "" })}\n`,
    );
    const before = readFileSync(file, "utf8");
    const requests = server.requests.length;

    const refused = await runKeel(args(ws, "-p", "-c", "second prompt"), { server, ws });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/read-only.*the prompt was not sent/);
    expect(refused.stderr).toMatch(/--fork/);
    expect(server.requests.length).toBe(requests);
    expect(readFileSync(file, "utf8")).toBe(before);

    // The way it names works: a fork takes the prompt.
    const id = /keel -r (\S+) --fork/.exec(refused.stderr)![1]!;
    const forked = await runKeel(args(ws, "-p", "-r", id, "--fork", "second prompt"), { server, ws });
    expect(forked).toMatchObject({ code: 0, stdout: "fallback\n" });
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("first prompt");
  });
});

describe("broken parent links", () => {
  /** Rewrites the journal's entries (the header stays). */
  function rewrite(file: string, edit: (entries: Record<string, unknown>[]) => Record<string, unknown>[]) {
    const [header, ...entries] = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    writeFileSync(file, `${[header, ...edit(entries)].map((l) => JSON.stringify(l)).join("\n")}\n`);
  }

  it("a last entry whose parent is missing: said on stderr, nothing dropped silently, the prompt refused (exit 2)", async () => {
    const { server, ws } = fresh([{ text: "one" }]);
    const file = await firstSession(ws, server);
    rewrite(file, (entries) => [...entries.slice(0, -1), { ...entries.at(-1)!, parentId: "gone000001" }]);
    const requests = server.requests.length;
    const refused = await runKeel(args(ws, "-p", "-c", "second prompt"), { server, ws });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /names parent gone000001, which is not in the file: the history before it is missing/,
    );
    expect(refused.stderr).toMatch(/part of its history is missing/);
    expect(server.requests.length).toBe(requests);
  });

  it("parent links in a cycle: refused with exit 2 and a message, not an uncaught error", async () => {
    const { server, ws } = fresh([{ text: "one" }]);
    const file = await firstSession(ws, server);
    rewrite(file, (entries) => {
      const first = entries[0]!;
      return [{ ...first, parentId: entries.at(-1)!.id }, ...entries.slice(1)];
    });
    const refused = await runKeel(args(ws, "-p", "-c", "second prompt"), { server, ws });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/name each other as parents in a cycle/);
    expect(refused.stderr).not.toMatch(/at \S+ \(|Uncaught|TypeError|RangeError/);
  });
});

describe("--read-only", () => {
  it("shows the conversation and writes nothing, also while another keel holds the session", async () => {
    const { server, ws } = fresh([
      { text: "the first answer" },
      { toolCalls: [{ id: "toolu_wait", name: "Bash", arguments: { command: "sleep 30" } }] },
    ]);
    const file = await firstSession(ws, server);
    const holder = startKeel(
      args(
        ws,
        "-p",
        "-c",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "stream-json",
        "wait",
      ),
      { server, ws },
    );
    await holder.waitForLine((l) => l.includes('"tool_start"'));
    const size = readFileSync(file).length;

    const shown = await runKeel(args(ws, "--read-only", "-c"), { server, ws });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("user: first prompt");
    expect(shown.stdout).toContain("assistant: the first answer");
    expect(shown.stdout).toContain('[Bash] {"command":"sleep 30"}');
    const json = await runKeel(args(ws, "--read-only", "-c", "--output-format", "json"), { server, ws });
    const [session] = lines(json.stdout);
    expect(session).toMatchObject({ type: "session", file });
    expect((session!.messages as unknown[]).length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(file).length).toBe(size);

    // Continuing it is what the lock refuses, naming the flags that do work.
    const locked = await runKeel(args(ws, "-p", "-c", "more"), { server, ws });
    expect(locked.code).toBe(2);
    expect(locked.stderr).toMatch(/open in another Keel process/);
    expect(locked.stderr).toMatch(/--read-only/);
    holder.child.kill("SIGTERM");
    await holder.done;
  });
});

describe("damaged journals", () => {
  it("a duplicated last line is reported and does not move the head back", async () => {
    const { server, ws } = fresh([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const file = await firstSession(ws, server);
    const second = await runKeel(args(ws, "-p", "-c", "second prompt"), { server, ws });
    expect(second.code).toBe(0);
    // The line of the first answer, written again at the end (a duplicated append).
    const firstAnswer = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.includes('"role":"assistant"') && l.includes('"one"'))!;
    appendFileSync(file, `${firstAnswer}\n`);

    const third = await runKeel(args(ws, "-p", "-c", "third prompt"), { server, ws });
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/repeats line \d+ .*the copy was skipped/);
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    for (const text of ["first prompt", "second prompt", "two", "third prompt"]) expect(sent).toContain(text);
  });

  it("an empty newest session file is named, and nothing else is opened or created", async () => {
    const { server, ws } = fresh([{ text: "one" }]);
    const file = await firstSession(ws, server);
    const empty = join(dirname(file), "2999-01-01T00-00-00-000Z_00000000-0000-0000-0000-000000000000.jsonl");
    writeFileSync(empty, "");
    const before = readdirSync(dirname(file)).filter((n) => n.endsWith(".jsonl"));

    const refused = await runKeel(args(ws, "-p", "-c", "go on"), { server, ws });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(empty);
    expect(refused.stderr).toMatch(/empty/);
    expect(readdirSync(dirname(file)).filter((n) => n.endsWith(".jsonl"))).toEqual(before);
  });
});

describe("a lock naming a live pid of another program", () => {
  it("is taken over (with a notice) instead of blocking the session", async () => {
    const { server, ws } = fresh([{ text: "one" }, { text: "resumed" }]);
    const file = await firstSession(ws, server);
    const unrelated = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await until(() => unrelated.pid !== undefined, "sleep to start");
      writeFileSync(
        `${file}.lock`,
        JSON.stringify({ pid: unrelated.pid, hostname: hostname(), started: "2020-01-01T00:00:00.000Z" }),
      );
      const resumed = await runKeel(args(ws, "-p", "-c", "again"), { server, ws });
      expect(resumed).toMatchObject({ code: 0, stdout: "resumed\n" });
      expect(resumed.stderr).toMatch(/Took over the lock .* left by pid \d+/);
    } finally {
      unrelated.kill("SIGKILL");
    }
  });
});
