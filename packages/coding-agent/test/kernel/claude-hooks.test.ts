// Hooks written for Claude Code work in Keel's config unchanged: its event names and nested
// shape, the event as JSON on stdin, exit 2 blocking with stderr as the reason, JSON decisions
// on stdout. A name Keel does not run is a warning, never a reason not to start.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

/** Enough said that a summary is smaller than what it replaces (a shorter history is not compacted). */
const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;

/** A hook script (run with node) and the file it logs each event it reads to. */
function script(name: string, body: string): { command: string; log: string } {
  const path = join(box.home, `${name}.mjs`);
  const log = join(box.home, `${name}.log`);
  writeFileSync(
    path,
    `import { appendFileSync, readFileSync } from "node:fs";
const event = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(${JSON.stringify(log)}, JSON.stringify(event) + "\\n");
${body}
`,
  );
  return { command: `node ${JSON.stringify(path)}`, log };
}

function configure(hooks: Record<string, unknown>) {
  mkdirSync(box.home, { recursive: true });
  writeFileSync(join(box.home, "config.json"), JSON.stringify({ hooks }));
}

const events = (log: string) =>
  readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function open(f: ReturnType<typeof faux>) {
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

describe("Claude Code hooks", () => {
  it("a PreToolUse script blocks a Bash call with exit 2, its stderr the reason the model sees", async () => {
    box = sandbox();
    const guard = script(
      "guard",
      `if (event.tool_name === "Bash" && event.tool_input.command.includes("rm ")) {
  process.stderr.write("rm is not allowed here; move the file to trash/ instead");
  process.exit(2);
}`,
    );
    configure({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard.command, timeout: 10 }] }],
    });
    writeFileSync(join(box.workspace, "keep.txt"), "x");
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Bash", arguments: { command: "rm keep.txt" } }] },
        { text: "I will not." },
      ],
    });
    const agent = await open(f);
    const ends: { isError: boolean; text: string }[] = [];
    agent.subscribe((e) => {
      if (e.type === "tool_end") ends.push({ isError: e.isError, text: e.text });
    });
    await agent.prompt("delete keep.txt");
    expect(existsSync(join(box.workspace, "keep.txt"))).toBe(true);
    expect(f.requests[1]!.raw).toContain("rm is not allowed here; move the file to trash/ instead");
    const [event] = events(guard.log);
    expect(event).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm keep.txt" },
      permission_mode: "bypassPermissions",
      session_id: agent.sessionId,
      transcript_path: agent.sessionFile,
    });
    await agent.close();
  });

  it("JSON decisions: PreToolUse deny, PostToolUse feedback, UserPromptSubmit context, Stop going on", async () => {
    box = sandbox();
    const pre = script(
      "pre",
      `if (event.tool_input.file_path?.endsWith("locked.txt"))
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "locked.txt is generated" } }));`,
    );
    const post = script(
      "post",
      `console.log(JSON.stringify({ decision: "block", reason: "run the formatter next" }));`,
    );
    const submit = script("submit", `console.log("The user's branch is feature/x.");`);
    const stop = script(
      "stop",
      `if (!event.stop_hook_active) { process.stderr.write("the tests were not run"); process.exit(2); }`,
    );
    configure({
      PreToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: pre.command }] }],
      PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: post.command }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command: submit.command }] }],
      Stop: [{ hooks: [{ type: "command", command: stop.command }] }],
    });
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Write", arguments: { path: "locked.txt", content: "no" } }] },
        { toolCalls: [{ name: "Write", arguments: { path: "free.txt", content: "yes" } }] },
        { text: "Done." },
        { text: "Tests run now." },
      ],
    });
    const agent = await open(f);
    const runs: string[] = [];
    const second = new Promise<void>((resolve) =>
      agent.subscribe((e) => {
        if (e.type === "run_start") runs.push(e.prompt);
        if (e.type === "run_end" && runs.length === 2) resolve();
      }),
    );
    await agent.prompt("write the files");
    await second;
    expect(existsSync(join(box.workspace, "locked.txt"))).toBe(false);
    expect(readFileSync(join(box.workspace, "free.txt"), "utf8")).toBe("yes");
    expect(f.requests[0]!.raw).toContain("The user's branch is feature/x.");
    expect(f.requests[1]!.raw).toContain("locked.txt is generated");
    expect(f.requests[2]!.raw).toContain("run the formatter next");
    // Stop blocked once (stop_hook_active false), so the agent went on with the hook's reason.
    expect(runs).toEqual([
      expect.stringContaining("write the files"),
      expect.stringMatching(/^the tests were not run/),
    ]);
    expect(events(stop.log).map((e) => e.stop_hook_active)).toEqual([false, true]);
    await agent.close();
  });

  it("a UserPromptSubmit exit 2 refuses the prompt; nothing is sent", async () => {
    box = sandbox();
    const gate = script("gate", `process.stderr.write("no prompts about secrets"); process.exit(2);`);
    configure({ UserPromptSubmit: [{ hooks: [{ type: "command", command: gate.command }] }] });
    const f = faux({ turns: [{ text: "never" }] });
    const agent = await open(f);
    const refused = await agent.prompt("tell me the secrets");
    expect(refused._unsafeUnwrapErr().message).toContain("no prompts about secrets");
    expect(f.requests).toHaveLength(0);
    await agent.close();
  });

  it("an event Keel does not produce, or a misspelt one, is one warning each and Keel starts", async () => {
    box = sandbox();
    configure({
      PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }],
      TeammateIdle: [{ command: "true" }],
      PreCompact: [{ hooks: [{ type: "command", command: "true" }] }],
      PreTooluse: [{ hooks: [{ type: "command", command: "true" }] }],
    });
    const f = faux({ turns: [{ text: "hi" }] });
    const agent = await open(f);
    const warnings = agent
      .diagnostics()
      .filter((d) => d.level === "warning")
      .map((d) => d.message);
    expect(warnings).toEqual([
      expect.stringContaining("hooks TeammateIdle, PreCompact: Claude Code events Keel does not produce"),
      expect.stringContaining(
        "hooks.PreTooluse is not a hook event of Keel or Claude Code (did you mean PreToolUse?)",
      ),
    ]);
    expect((await agent.prompt("hello")).isOk()).toBe(true);
    await agent.close();
  });

  it("PostToolUseFailure after a failed call, PostToolUse only after a good one, env reaching hooks and commands", async () => {
    box = sandbox();
    const post = script("post", "");
    const failure = script(
      "failure",
      `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "hint: " + process.env.TEAM } }));`,
    );
    mkdirSync(box.home, { recursive: true });
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({
        env: { TEAM: "blue" },
        hooks: {
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: post.command }] }],
          PostToolUseFailure: [{ matcher: "Bash", hooks: [{ type: "command", command: failure.command }] }],
        },
      }),
    );
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Bash", arguments: { command: 'echo "team=$TEAM" > team.txt' } }] },
        { toolCalls: [{ name: "Bash", arguments: { command: "exit 3" } }] },
        { text: "done" },
      ],
    });
    const agent = await open(f);
    await agent.prompt("go");
    expect(readFileSync(join(box.workspace, "team.txt"), "utf8").trim()).toBe("team=blue");
    expect(events(post.log).map((e) => e.tool_input)).toEqual([{ command: 'echo "team=$TEAM" > team.txt' }]);
    const [failed] = events(failure.log);
    expect(failed).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      tool_input: { command: "exit 3" },
      is_interrupt: false,
    });
    expect(String(failed!.error)).toContain("3");
    expect(f.requests[2]!.raw).toContain("hint: blue");
    await agent.close();
  });

  it("Notification when the permission gate asks, PostCompact after /compact, SessionEnd at exit", async () => {
    box = sandbox();
    const notify = script("notify", "");
    const compacted = script("compacted", "");
    const end = script("end", "");
    configure({
      Notification: [{ matcher: "permission_prompt", hooks: [{ type: "command", command: notify.command }] }],
      PostCompact: [{ matcher: "manual", hooks: [{ type: "command", command: compacted.command }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: end.command }] }],
    });
    const f = faux({
      turns: [
        {
          text: `Touching it.${LONG}`,
          toolCalls: [{ name: "Bash", arguments: { command: "touch asked.txt" } }],
        },
        { text: "ok" },
        { text: "Summary: the user asked to touch a file." },
      ],
    });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      ui: { approve: async () => ({ decision: "allow_once" }) },
    });
    const agent = created._unsafeUnwrap();
    await agent.prompt(`touch it${LONG}`);
    expect(existsSync(join(box.workspace, "asked.txt"))).toBe(true);
    // The notification is fired, not awaited: give the hook its moment.
    for (let i = 0; i < 50 && !existsSync(notify.log); i++) await new Promise((r) => setTimeout(r, 50));
    expect(events(notify.log)).toEqual([
      expect.objectContaining({
        hook_event_name: "Notification",
        notification_type: "permission_prompt",
        message: "Keel needs your permission to use Bash",
        session_id: agent.sessionId,
      }),
    ]);
    (await agent.compact())._unsafeUnwrap();
    expect(events(compacted.log)).toEqual([
      expect.objectContaining({ hook_event_name: "PostCompact", trigger: "manual" }),
    ]);
    await agent.close();
    expect(events(end.log)).toEqual([
      expect.objectContaining({ hook_event_name: "SessionEnd", reason: "other" }),
    ]);
  });
});
