// The kernel against a misbehaving model: a malformed tool call fails alone and the session
// resumes without a crash report; config's stream bounds (idle timeout, reply size, retries)
// reach every model call.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScenarioStep } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentEvent, createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function open(turns: ScenarioStep[], mode: "new" | "continue" = "new") {
  const f = faux({ turns });
  const events: CodingAgentEvent[] = [];
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    // No retry override: config's stream.maxRetries must apply.
    streamOptions: { fetch: f.fetch, apiKey: "test" },
    permissionMode: "bypassPermissions",
    session: { mode },
    onEvent: (e) => events.push(e),
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, events, f };
}

function config(value: unknown): void {
  mkdirSync(box.home, { recursive: true });
  writeFileSync(join(box.home, "config.json"), JSON.stringify(value));
}

describe("a malformed tool call", () => {
  it("fails alone: its siblings run, the model retries it, and -c reports no crash", async () => {
    box = sandbox();
    const { agent, f } = await open([
      {
        toolCalls: [
          { id: "w1", name: "Write", arguments: { path: "one.txt", content: "1" } },
          { id: "bad", name: "Write", arguments: '{"path": "two.txt", "content": ' },
          { id: "w3", name: "Write", arguments: { path: "three.txt", content: "3" } },
        ],
      },
      { toolCalls: [{ id: "again", name: "Write", arguments: { path: "two.txt", content: "2" } }] },
      { text: "All three written." },
    ]);
    const summary = (await agent.prompt("write three files"))._unsafeUnwrap();
    expect(summary).toMatchObject({ stopReason: "stop", text: "All three written." });
    expect(summary.error).toBeUndefined();
    expect(f.requests).toHaveLength(3);
    expect(JSON.stringify(f.requests[1]?.body.messages)).toContain("were not valid JSON");
    await agent.close();

    const again = await open([{ text: "resumed" }], "continue");
    expect(again.events.some((e) => e.type === "recovery")).toBe(false);
    const messages = again.agent.messages();
    expect(messages.filter((m) => m.role === "toolResult")).toHaveLength(4);
    await again.agent.close();
  });
});

describe("config's stream bounds", () => {
  it("stream.idleTimeoutMs and stream.maxRetries: a stall is dropped, retried once, then a clean error", async () => {
    box = sandbox();
    config({ stream: { idleTimeoutMs: 500, maxRetries: 1 } });
    const stall: ScenarioStep = { text: "never", stallAfterEvents: 0 };
    const { agent, events, f } = await open([stall, stall, { text: "unused" }]);
    const summary = (await agent.prompt("hi"))._unsafeUnwrap();
    expect(summary.stopReason).toBe("error");
    expect(summary.error).toMatchObject({
      type: "network",
      message: expect.stringContaining("idle timeout"),
    });
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(f.requests).toHaveLength(2);
    await agent.close();
    const again = await open([{ text: "fine now" }], "continue");
    expect(again.events.some((e) => e.type === "recovery")).toBe(false);
    expect((await again.agent.prompt("again"))._unsafeUnwrap().text).toBe("fine now");
    await again.agent.close();
  });

  it("stream.maxReplyChars: an endless reply ends with reply_too_large", async () => {
    box = sandbox();
    config({ stream: { maxReplyChars: 4096 } });
    const { agent } = await open([{ text: "more ", endless: true }]);
    const summary = (await agent.prompt("hi"))._unsafeUnwrap();
    expect(summary.stopReason).toBe("error");
    expect(summary.error).toMatchObject({ type: "reply_too_large" });
    await agent.close();
  });
});
