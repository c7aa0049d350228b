// Every way keel is stopped ends the same way: SIGINT, SIGTERM, SIGHUP (print mode and a real
// terminal closing in tmux) and a tool that never settles all exit with their code within a
// second, with the session unlocked and its journal intact (an immediate `keel -c` works),
// and no process a command started — not even a `setsid` or `disown` escape — left running.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSession } from "@keel/session";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, MODEL, mockSuite, runKeel, sessionFiles, startKeel, until, type Workspace } from "./helpers.js";

const { fresh } = mockSuite({ text: "continued" });

/** Alive and not a zombie (a re-parented zombie may never be reaped in a container). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * Two escapes (a new session; a disowned job), each marked by a sleep duration no other process
 * uses: commands run in the sandbox's own PID namespace, so `$!` would not name them out here.
 */
function escapes(): { command: string; live(): number[] } {
  const tokens = [300, 301].map((s) => `${s}.${process.pid}${Math.floor(Math.random() * 1e6)}`);
  return {
    command: `setsid sleep ${tokens[0]} > /dev/null 2>&1 & sleep ${tokens[1]} > /dev/null 2>&1 & disown`,
    live: () =>
      readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p) && running(Number(p)))
        .filter((p) => {
          try {
            const args = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
            return tokens.some((t) => args.includes(t));
          } catch {
            return false;
          }
        })
        .map(Number),
  };
}

const bashTurn = (command: string) => ({
  toolCalls: [{ id: "toolu_escape", name: "Bash", arguments: { command } }],
});

const args = (ws: Workspace, ...more: string[]) => [
  "-p",
  "--model",
  MODEL,
  "--permission-mode",
  "bypassPermissions",
  "--cwd",
  ws.repo,
  ...more,
];

function expectUnlockedAndIntact(ws: Workspace): string {
  const [file] = sessionFiles(ws.home);
  expect(file).toBeDefined();
  expect(existsSync(`${file}.lock`)).toBe(false);
  for (const line of readFileSync(file!, "utf8").trim().split("\n")) JSON.parse(line);
  expect(readFileSync(file!, "utf8")).toContain('"op_begin"');
  return file!;
}

async function expectContinues(ws: Workspace, server: ReturnType<typeof fresh>["server"]) {
  const next = await runKeel(args(ws, "-c", "go on"), { server, ws });
  expect(next.stderr).not.toMatch(/open in another Keel process/);
  expect(next).toMatchObject({ code: 0, stdout: "continued\n" });
}

/**
 * Generous on purpose: a test asserts that exits happen (the hangs this catches took 2 s to
 * minutes); the sub-second figure on a quiet machine is measured by bench/exits/run.mjs.
 */
const EXIT_BOUND_MS = 3000;

describe("processes a command leaves behind", () => {
  it("are ended when the tool call ends", async () => {
    const escaped = escapes();
    const { server, ws } = fresh([bashTurn(`${escaped.command}\necho started`), { text: "done" }]);
    const done = await runKeel(args(ws, "go"), { server, ws });
    expect(done).toMatchObject({ code: 0, stdout: "done\n" });
    expect(server.requests.at(-1)?.raw).toContain("started");
    expect(escaped.live()).toEqual([]);
  });
});

describe.each([
  ["SIGINT", { code: 130, signal: null }],
  ["SIGTERM", { code: 143, signal: null }],
  ["SIGHUP", { code: null, signal: "SIGHUP" }],
] as const)("%s during a Bash call", (signal, expected) => {
  it("exits within a second with its code, the session unlocked and intact, no process left", async () => {
    const escaped = escapes();
    const { server, ws } = fresh([bashTurn(`${escaped.command}\nsleep 30`)]);
    const run = startKeel(args(ws, "go", "--output-format", "stream-json"), { server, ws });
    await until(() => escaped.live().length === 2, "the escapes to start");
    const sent = Date.now();
    run.child.kill(signal);
    const done = await run.done;
    const elapsed = Date.now() - sent;
    expect({ code: done.code, signal: done.signal }).toEqual(expected);
    expect(elapsed).toBeLessThan(EXIT_BOUND_MS);
    expect(done.stderr).not.toMatch(/Assertion failed/);
    expect(escaped.live()).toEqual([]);
    expectUnlockedAndIntact(ws);
    await expectContinues(ws, server);
  });
});

describe("a tool that never settles", () => {
  it("with nothing left to wait for, ends the run with 1 and a note, unlocked, instead of exiting 0", async () => {
    const { server, ws } = fresh([{ toolCalls: [{ id: "toolu_hang", name: "Hang", arguments: {} }] }]);
    const extension = join(ws.home, "hang.mjs");
    writeFileSync(
      extension,
      `export default (keel) => {
  keel.registerTool({
    name: "Hang",
    description: "Waits for nothing, forever.",
    // A TypeBox object schema, spelled out (the file has no node_modules to import Type from).
    parameters: { [Symbol.for("TypeBox.Kind")]: "Object", type: "object", properties: {} },
    sideEffects: true,
    execute: () => new Promise(() => {}),
  });
};
`,
    );
    const run = startKeel(args(ws, "hang", "-e", extension, "--output-format", "stream-json"), {
      server,
      ws,
    });
    await run.waitForLine((l) => l.includes('"tool_start"') && l.includes("toolu_hang"));
    const stuck = Date.now();
    const done = await run.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/stopped making progress/);
    expect(Date.now() - stuck).toBeLessThan(EXIT_BOUND_MS);
    expectUnlockedAndIntact(ws);
    // The call that never ended is reported as such on the next start.
    const next = await runKeel(args(ws, "-c", "go on"), { server, ws });
    expect(next).toMatchObject({ code: 0, stdout: "continued\n" });
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain("toolu_hang");
  });
});

describe("closing the terminal of an interactive keel (tmux)", () => {
  let socket = "";
  const tmux = (...a: string[]) => execFileSync("tmux", ["-L", socket, ...a], { encoding: "utf8" });
  afterEach(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });

  for (const how of ["SIGHUP", "the terminal going away"] as const) {
    it(`ends within a second on ${how}: no assertion, the lock released, no process left`, async () => {
      if (spawnSync("tmux", ["-V"]).error) throw new Error("tmux is not installed: apt-get install -y tmux");
      const escaped = escapes();
      const { server, ws } = fresh([bashTurn(`${escaped.command}\nsleep 30`)]);
      socket = `keel-exits-${process.pid}-${how.length}`;
      const stderrFile = join(ws.home, "stderr.txt");
      // exec: keel itself is the terminal's process, as when started from a shell that hands
      // SIGHUP on to it.
      const command = [
        "exec env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CI -u CONTINUOUS_INTEGRATION",
        `ANTHROPIC_BASE_URL='${server.anthropicBaseUrl}' ANTHROPIC_API_KEY=test`,
        `HOME='${ws.user}' KEEL_HOME='${ws.home}' NO_PROXY=127.0.0.1`,
        `'${process.execPath}' '${BIN}' --cwd '${ws.repo}' --model ${MODEL} --permission-mode bypassPermissions`,
        `2> '${stderrFile}'`,
      ].join(" ");
      tmux("new-session", "-d", "-s", "k", "-x", "120", "-y", "40", command);
      const pid = Number(tmux("display-message", "-p", "-t", "k", "#{pane_pid}").trim());
      const screen = () => tmux("capture-pane", "-p", "-t", "k");
      await until(() => /ready ·/.test(screen()), "the TUI to be ready");
      tmux("send-keys", "-t", "k", "-l", "go");
      await until(() => screen().includes("› go"), "the prompt to show");
      tmux("send-keys", "-t", "k", "Enter");
      await until(() => escaped.live().length === 2, "the escapes to start");

      const sent = Date.now();
      if (how === "SIGHUP") process.kill(pid, "SIGHUP");
      else tmux("kill-server");
      await until(() => !running(pid), "keel to exit", 5000);
      expect(Date.now() - sent).toBeLessThan(EXIT_BOUND_MS);
      expect(readFileSync(stderrFile, "utf8")).not.toMatch(/Assertion failed/);
      expect(escaped.live()).toEqual([]);
      const file = expectUnlockedAndIntact(ws);
      // The interrupted call is closed: by its journaled (aborted) result, or on reopening.
      const session = (await openSession(file, { readOnly: true }))._unsafeUnwrap();
      const folded = session.fold();
      const closed =
        folded.messages.some((m) => m.role === "toolResult" && m.toolCallId === "toolu_escape") ||
        folded.recovery.some((a) => a.kind !== "interrupted_message" && a.toolCallId === "toolu_escape");
      expect(closed).toBe(true);
      await session.close();
      await expectContinues(ws, server);
    });
  }
});
