// The headless contract through the built bin: a scripted session driven over stdin
// (--input-format stream-json, two turns) with tools, a denied Bash call, a child agent, a 429
// retried and a context overflow compacted, every stdout line checked against the schema the
// package ships; the json output of a success and of a failure; --read-only's lines.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";
import { assertValid, validators } from "./print-schema.js";

const { fresh } = mockSuite();

/** A one-file extension whose tool hands its task to a child agent (the kernel's runAgent). */
function delegateExtension(ws: Workspace): string {
  const file = join(ws.repo, "delegate.mjs");
  writeFileSync(
    file,
    `export default (keel) => {
  keel.registerTool({
    name: "Delegate",
    description: "Hand a task to a helper agent.",
    parameters: keel.Type.Object({ task: keel.Type.String() }),
    access: "none",
    async execute(args, ctx) {
      const started = await ctx.runAgent({ prompt: args.task, title: "helper", agentId: "helper-1", tools: { allow: ["Read"] } });
      if (!started.ok) return keel.textResult(started.error.message);
      return keel.textResult((await started.run.result).text);
    },
  });
};
`,
  );
  return file;
}

const input = (...prompts: string[]) =>
  prompts.map((content) => `${JSON.stringify({ type: "user", content })}\n`).join("");

/** Enough said that a summary is smaller than what it replaces. */
const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(24)}`;

describe("stream-json in and out", () => {
  it("two turns over stdin: tools, a denial, a child agent, a retry and a compaction, every line valid", async () => {
    const { server, ws } = fresh([
      // Turn 1: three calls: Read runs, Bash is denied (print mode cannot ask), Delegate runs a child.
      {
        text: "Looking.",
        toolCalls: [
          { id: "t_read", name: "Read", arguments: { path: "notes.txt" } },
          { id: "t_bash", name: "Bash", arguments: { command: "rm -rf build" } },
          { id: "t_del", name: "Delegate", arguments: { task: "Say what the notes say." } },
        ],
      },
      // The child's one request.
      { text: "The notes say hello." },
      // The parent's next request: rate limited once, then answered.
      { kind: "error", status: 429, headers: { "retry-after": "0" }, message: "slow down" },
      { text: "Read the notes; rm was not allowed; the helper summarised them." },
      // Turn 2: the context overflows, the history is summarised, the request goes again.
      { kind: "context_overflow" },
      { text: "## Goal\nTidy the repo.\n## Next steps\n- report" },
      { text: "All reported." },
    ]);
    writeFileSync(join(ws.repo, "notes.txt"), `hello\n${LONG}\n`);
    const r = await runKeel(
      [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--include-partial-messages",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
        "-e",
        delegateExtension(ws),
      ],
      // Long enough that compacting it shrinks the context (a short history is not compacted).
      { server, ws, input: input("Tidy the repo.", `Now report.${LONG}`) },
    );
    expect(r.stderr).toContain("keel: denied Bash (rm -rf build) by headless:");
    expect(r.stderr).toMatch(
      /^keel: retry 1\/4 in 0 ms: anthropic answered 429 at http:\/\/127\.0\.0\.1:\d+\/v1\/messages: slow down\./m,
    );
    expect(r.code).toBe(0);

    const out = lines(r.stdout); // each line checked against the shipped schema
    const init = out[0]!;
    expect(init).toMatchObject({ type: "init", schemaVersion: 1, model: MODEL });
    expect(init.tools).toEqual(expect.arrayContaining(["Read", "Bash", "Delegate"]));
    for (const line of out) expect(line.sessionId).toBe(init.sessionId);

    const types = new Set(out.map((l) => l.type));
    for (const t of [
      "run_start",
      "turn_start",
      "text_delta",
      "message",
      "tool_start",
      "tool_end",
      "permission_denied",
      "agent_start",
      "agent_end",
      "retry",
      "compaction_start",
      "compaction_end",
      "turn_end",
      "result",
    ])
      expect(types, `a ${t} line`).toContain(t);

    // The child's own lines, marked with its id, in the parent's session.
    const child = out.filter(
      (l) => l.agentId === "helper-1" && l.type !== "agent_start" && l.type !== "agent_end",
    );
    expect(child.map((l) => l.type)).toEqual(expect.arrayContaining(["run_start", "message"]));
    expect(child.every((l) => l.agentTitle === "helper")).toBe(true);
    expect(out.find((l) => l.type === "agent_start")).toMatchObject({
      agentId: "helper-1",
      background: false,
    });
    expect(out.find((l) => l.type === "agent_end")).toMatchObject({
      agentId: "helper-1",
      status: "completed",
    });

    // Partial text deltas add up to the message that follows them.
    const firstAssistant = out.find(
      (l) => l.type === "message" && (l.message as { role: string }).role === "assistant" && !l.agentId,
    )!;
    const deltas = out
      .slice(0, out.indexOf(firstAssistant))
      .filter((l) => l.type === "text_delta" && !l.agentId);
    expect(deltas.map((d) => d.delta).join("")).toBe("Looking.");

    const results = out.filter((l) => l.type === "result");
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      isError: false,
      outcome: "success",
      stopReason: "stop",
      text: "Read the notes; rm was not allowed; the helper summarised them.",
      turns: 2,
      permissionDenials: [{ toolCallId: "t_bash", toolName: "Bash", input: "rm -rf build", by: "headless" }],
      children: [{ agentId: "helper-1", title: "helper" }],
    });
    const first = results[0] as {
      cost: number;
      totalCost: number;
      children: { usage: { cost: { total: number } } }[];
    };
    expect(first.totalCost).toBeCloseTo(first.cost + first.children[0]!.usage.cost.total, 10);
    expect(out.find((l) => l.type === "retry")).toMatchObject({
      attempt: 1,
      maxRetries: 4,
      error: { type: "http", status: 429, reason: "rate_limit" },
    });
    expect(results[1]).toMatchObject({
      isError: false,
      outcome: "success",
      text: "All reported.",
      permissionDenials: [],
    });
    expect(out.find((l) => l.type === "compaction_end")).toMatchObject({ reason: "overflow", ok: true });
    // The second turn began after the first result: stdin drove the runs one after the other.
    expect(out.findIndex((l) => l.type === "run_start" && l.prompt === `Now report.${LONG}`)).toBeGreaterThan(
      out.indexOf(results[0]!),
    );
    expect(server.requests).toHaveLength(7);
  });

  it("a stdin line that is not a user message stops the reading with exit 2, after the runs before it", async () => {
    const { server, ws } = fresh([{ text: "one done" }]);
    const r = await runKeel(
      [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
      ],
      { server, ws, input: `${input("one")}{"type":"assistant","content":"x"}\n${input("never")}` },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'keel: stdin line 2 has type "assistant"; only "user" lines are read; expected {"type":"user","content":"…"} (or Claude Code\'s {"type":"user","message":{"role":"user","content":"…"}}). Reading stopped there.',
    );
    const out = lines(r.stdout);
    expect(out.filter((l) => l.type === "result").map((l) => l.text)).toEqual(["one done"]);
    expect(server.requests).toHaveLength(1);
  });

  it("a line in Claude Code's input shape is read as the same prompt; another role is refused", async () => {
    const { server, ws } = fresh([{ text: "hello back" }]);
    const r = await runKeel(
      [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
      ],
      {
        server,
        ws,
        input: `${[
          JSON.stringify({
            type: "user",
            message: { role: "user", content: [{ type: "text", text: "hi" }] },
            session_id: "default",
            parent_tool_use_id: null,
          }),
          JSON.stringify({ type: "user", message: { role: "assistant", content: "no" } }),
        ].join("\n")}\n`,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('keel: stdin line 2 has message.role "assistant"; only "user" is read');
    expect(
      lines(r.stdout)
        .filter((l) => l.type === "result")
        .map((l) => l.text),
    ).toEqual(["hello back"]);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body)).toContain('"hi"');
  });

  it("the input lines a driver sends match the schema's InputLine", () => {
    const { InputLine } = validators();
    expect(InputLine({ type: "user", content: "hi" })).toBe(true);
    expect(InputLine({ type: "user", content: [{ type: "text", text: "hi" }] })).toBe(true);
    expect(InputLine({ type: "user", message: { role: "user", content: "hi" } })).toBe(true);
    expect(InputLine({ type: "user", message: { role: "assistant", content: "hi" } })).toBe(false);
    expect(InputLine({ type: "user", content: "hi", extra: 1 })).toBe(false);
  });
});

describe("json output", () => {
  it("the same kind of run (tools, a denial, a retry, a compaction) as one json object the schema accepts", async () => {
    const { server, ws } = fresh([
      {
        toolCalls: [
          { id: "t_read", name: "Read", arguments: { path: "notes.txt" } },
          { id: "t_bash", name: "Bash", arguments: { command: "git push origin main" } },
        ],
      },
      { kind: "error", status: 429, headers: { "retry-after": "0" }, message: "slow down" },
      { kind: "context_overflow" },
      { text: "## Goal\nRead the notes.\n## Next steps\n- answer" },
      { text: "The notes say hello; the push was not allowed." },
    ]);
    writeFileSync(join(ws.repo, "notes.txt"), `hello\n${LONG}\n`);
    const r = await runKeel(
      ["-p", `Read the notes.${LONG}`, "--output-format", "json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^keel: retry 1\/4 in 0 ms: anthropic answered 429/m);
    const out = lines(r.stdout);
    expect(out).toHaveLength(1);
    assertValid(out[0], "JsonOutput");
    expect(out[0]).toMatchObject({
      type: "result",
      isError: false,
      outcome: "success",
      text: "The notes say hello; the push was not allowed.",
      turns: 3, // the tool turn, the turn that overflowed, the one after the compaction
      permissionDenials: [
        { toolCallId: "t_bash", toolName: "Bash", input: "git push origin main", by: "headless" },
      ],
    });
    expect(server.requests).toHaveLength(5);
  });

  it("a success and a provider failure are each one object the schema accepts", async () => {
    const ok = fresh([{ text: "fine" }]);
    const good = await runKeel(
      ["-p", "hi", "--output-format", "json", "--model", MODEL, "--cwd", ok.ws.repo],
      ok,
    );
    expect(good.code).toBe(0);
    const [success] = lines(good.stdout);
    assertValid(success, "JsonOutput");
    expect(success).toMatchObject({
      type: "result",
      isError: false,
      outcome: "success",
      text: "fine",
      permissionDenials: [],
    });

    const bad = fresh([{ kind: "error", status: 401, message: "invalid x-api-key" }]);
    const failed = await runKeel(
      ["-p", "hi", "--output-format", "json", "--model", MODEL, "--cwd", bad.ws.repo],
      bad,
    );
    expect(failed.code).toBe(1);
    const [failure] = lines(failed.stdout);
    assertValid(failure, "JsonOutput");
    expect(failure).toMatchObject({
      isError: true,
      outcome: "error",
      error: {
        type: "http",
        status: 401,
        reason: "auth",
        hint: expect.stringContaining("ANTHROPIC_API_KEY"),
      },
    });
  });

  it("the schema refuses what a script could not rely on", () => {
    const { StreamLine, JsonOutput } = validators();
    expect(StreamLine({ type: "turn_start", turn: 1 })).toBe(false); // no session id
    expect(StreamLine({ type: "turn_start", sessionId: "s", turn: 1, extra: true })).toBe(false);
    expect(StreamLine({ type: "no_such_line", sessionId: "s" })).toBe(false);
    expect(JsonOutput({ type: "result", sessionId: "s" })).toBe(false);
  });
});

describe("--read-only", () => {
  it("stream-json and json show the session in lines the schema accepts", async () => {
    const { server, ws } = fresh([{ text: "remembered" }]);
    await runKeel(["-p", "remember", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    const stream = await runKeel(["--read-only", "-c", "--output-format", "stream-json", "--cwd", ws.repo], {
      ws,
    });
    const shown = lines(stream.stdout);
    expect(shown[0]).toMatchObject({ type: "session" });
    // The conversation (a capability notice may come first): every line a message, the answer last.
    expect(new Set(shown.slice(1).map((l) => l.type))).toEqual(new Set(["message"]));
    expect(shown.at(-1)).toMatchObject({ message: { role: "assistant", content: [{ text: "remembered" }] } });
    const json = await runKeel(["--read-only", "-c", "--output-format", "json", "--cwd", ws.repo], { ws });
    assertValid(lines(json.stdout)[0], "JsonOutput");
  });
});
