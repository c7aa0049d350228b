// What a restarted kernel does with what a kill left in the journal, shown deterministically on
// journals written by hand: the torture finds these states at random, these tests pin each one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type AssistantMessage, emptyUsage, type Message } from "@keel/ai";
import { createSession, openSession } from "@keel/session";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentEvent, createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

const usage = { ...emptyUsage(), input: 1, output: 1, totalTokens: 2 };

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]) {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "faux",
    model: "faux-model",
    usage,
    stopReason,
    timestamp: 1,
  } satisfies AssistantMessage;
}

let box: Sandbox;
afterEach(() => box?.cleanup());

/** Writes a session as a killed kernel would have left it, in the dir `continue` looks in. */
async function killedSession(write: (s: import("@keel/session").Session) => Promise<void>) {
  box = sandbox();
  const dir = join(box.home, "sessions", "crash");
  const created = await createSession({ dir, cwd: box.workspace });
  if (created.isErr()) throw new Error(created.error.message);
  await created.value.appendMessage({ role: "user", content: "write three files", timestamp: 1 });
  await write(created.value);
  // A killed process never closes; closing here only releases the lock (nothing pending is kept).
  await created.value.close();
  return { dir, path: created.value.path };
}

async function resume(dir: string, events: CodingAgentEvent[] = []) {
  const mock = faux({ turns: [{ text: "Checked." }] });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    sessionDir: dir,
    model: mock.model,
    streamOptions: mock.streamOptions,
    permissionMode: "bypassPermissions",
    session: { mode: "continue" },
    discoverExtensions: false,
    // Heard from the start: recovery is announced while the agent is being created.
    onEvent: (event) => events.push(event),
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const run = await agent.prompt("carry on");
  await agent.close();
  expect(run.isOk() && run.value.stopReason).toBe("stop");
  return mock.requests[0]!.body.messages as { role: string; content: unknown }[];
}

function toolResults(messages: { role: string; content: unknown }[]) {
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; tool_use_id?: string; is_error?: boolean; content?: unknown }[]).filter(
          (b) => b.type === "tool_result",
        )
      : [],
  );
}

const text = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");

describe("resuming after a kill", () => {
  it("closes each interrupted call with a result worded by its classification", async () => {
    const { dir, path } = await killedSession(async (s) => {
      const call = (id: string) => ({
        type: "toolCall" as const,
        id,
        name: "Write",
        arguments: { path: `${id}.txt`, content: id },
      });
      await s.appendMessage(assistant([call("toolu_a"), call("toolu_b"), call("toolu_c")], "toolUse"));
      // a: killed before its T1. b: killed after T1, before T2. c: killed after T2, before its result.
      await s.appendEntry({ type: "op_begin", toolCallId: "toolu_b", toolName: "Write", args: {} });
      await s.appendEntry({ type: "op_begin", toolCallId: "toolu_c", toolName: "Write", args: {} });
      await s.appendEntry({ type: "op_end", toolCallId: "toolu_c", outcome: "ok", summary: "Created c" });
    });

    const results = toolResults(await resume(dir));
    const byId = Object.fromEntries(results.map((r) => [r.tool_use_id, r]));
    expect(Object.keys(byId).sort()).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
    expect(text(byId.toolu_a!.content)).toMatch(/never ran.*Nothing was changed/);
    expect(byId.toolu_a!.is_error).toBe(true);
    expect(text(byId.toolu_b!.content)).toMatch(
      /outcome is unknown\. Verify the current state before running it again/,
    );
    expect(byId.toolu_b!.is_error).toBe(true);
    expect(text(byId.toolu_c!.content)).toMatch(/finished \(ok\).*Summary: Created c/);
    expect(byId.toolu_c!.is_error).toBe(false);
    // Recovery never re-runs anything.
    for (const id of ["toolu_a", "toolu_b", "toolu_c"])
      expect(existsSync(join(box.workspace, `${id}.txt`))).toBe(false);

    const reopened = await openSession(path, { readOnly: true });
    if (reopened.isErr()) throw new Error(reopened.error.message);
    expect(reopened.value.fold().recovery).toEqual([]);
    await reopened.value.close();
  });

  it("keeps the text of a reply cut off mid-stream in the conversation", async () => {
    const { dir, path } = await killedSession(async (s) => {
      // The first checkpoint of a stream is written at once; then the process died.
      s.checkpoint(assistant([{ type: "text", text: "Half of the answer the user already read" }], "stop"));
    });

    const messages = await resume(dir);
    const assistants = messages.filter((m) => m.role === "assistant").map((m) => text(m.content));
    expect(assistants.some((t) => t.includes("Half of the answer the user already read"))).toBe(true);

    const reopened = await openSession(path, { readOnly: true });
    if (reopened.isErr()) throw new Error(reopened.error.message);
    const kept = reopened.value
      .fold()
      .messages.filter((m: Message) => m.role === "assistant")
      .map((m) => text(m.content));
    expect(kept.some((t) => t.includes("Half of the answer the user already read"))).toBe(true);
    await reopened.value.close();
  });

  it("tells the user what the kill interrupted, through the agent's events", async () => {
    const { dir } = await killedSession(async (s) => {
      const call = { type: "toolCall" as const, id: "toolu_x", name: "Bash", arguments: { command: "make" } };
      await s.appendMessage(assistant([call], "toolUse"));
      await s.appendEntry({
        type: "op_begin",
        toolCallId: "toolu_x",
        toolName: "Bash",
        args: call.arguments,
      });
    });

    const events: CodingAgentEvent[] = [];
    await resume(dir, events);
    const told = events.flatMap((e) => (e.type === "recovery" ? [e.text] : []));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/toolu_x.*may or may not have taken effect/s);
  });
});
