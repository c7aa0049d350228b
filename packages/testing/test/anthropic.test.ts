// The real @anthropic-ai/sdk against the Anthropic Messages dialect, over both transports.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplyTurn } from "../src/index.js";
import { openTransport, rejection, TRANSPORTS, type Transport } from "./transports.js";

const PARAMS = {
  model: "claude-test",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "hello" }],
};

const FULL: ReplyTurn = {
  thinking: "The user greets me; I should list files and read one.",
  thinkingSignature: "c2lnbmF0dXJl",
  text: "Let me look around.",
  toolCalls: [
    { id: "toolu_a", name: "read", arguments: { path: "/repo/src/index.ts", limit: 200 } },
    { name: "ls", arguments: { dir: "/repo", recursive: true } },
  ],
  usage: { input: 100, output: 50, cacheRead: 30, cacheWrite: 20, reasoning: 12 },
  chunkSize: 6,
};

describe.each(TRANSPORTS)("Anthropic Messages over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  it("streams thinking with its signature, text and two parallel tool calls the SDK assembles", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const stream = t.anthropic.messages.stream(PARAMS);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    stream.on("streamEvent", (event) => events.push(event));
    const message = await stream.finalMessage();

    expect(message.content).toEqual([
      { type: "thinking", thinking: FULL.thinking, signature: "c2lnbmF0dXJl" },
      expect.objectContaining({ type: "text", text: "Let me look around." }),
      { type: "tool_use", id: "toolu_a", name: "read", input: { path: "/repo/src/index.ts", limit: 200 } },
      { type: "tool_use", id: "toolu_keel0000_1", name: "ls", input: { dir: "/repo", recursive: true } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 20,
      output_tokens_details: { thinking_tokens: 12 },
    });
    const jsonDeltas = events.filter(
      (e) => e.type === "content_block_delta" && e.delta.type === "input_json_delta" && e.index === 2,
    );
    expect(jsonDeltas.length).toBeGreaterThan(3);
    expect(events.map((e) => e.type)).toContain("message_delta");
    expect(events.at(-1)?.type).toBe("message_stop");
  });

  it("maps stop reasons: end_turn for plain text, max_tokens for length", async () => {
    t = await openTransport(kind, { turns: [{ text: "done" }, { text: "cut sh", stopReason: "length" }] });
    expect((await t.anthropic.messages.stream(PARAMS).finalMessage()).stop_reason).toBe("end_turn");
    const cut = await t.anthropic.messages.stream(PARAMS).finalMessage();
    expect(cut.stop_reason).toBe("max_tokens");
    expect(cut.content).toEqual([expect.objectContaining({ type: "text", text: "cut sh" })]);
  });

  it("answers a non-streaming request with a JSON message", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const message = await t.anthropic.messages.create(PARAMS);
    expect(message.id).toBe("msg_keel0000");
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(message.usage.output_tokens).toBe(50);
  });

  it("returns a scripted 429 with retry-after as the SDK's RateLimitError", async () => {
    t = await openTransport(kind, {
      turns: [{ kind: "error", status: 429, headers: { "retry-after": "7" }, message: "slow down" }],
    });
    const error = await rejection(() => t.anthropic.messages.create({ ...PARAMS, stream: true }));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const apiError = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(apiError.status).toBe(429);
    expect(apiError.headers?.get("retry-after")).toBe("7");
    expect(apiError.error).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    });
  });

  it("answers a context overflow with the vendor's prompt-too-long error", async () => {
    t = await openTransport(kind, { turns: [{ kind: "context_overflow", promptTokens: 210_000 }] });
    const error = (await rejection(() => t.anthropic.messages.create(PARAMS))) as InstanceType<
      typeof Anthropic.BadRequestError
    >;
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
    });
  });

  it("surfaces a mid-stream disconnect as a rejection after the first text arrived", async () => {
    t = await openTransport(kind, {
      turns: [{ text: "partial answer that never ends", chunkSize: 4, disconnectAfterEvents: 5 }],
    });
    const stream = t.anthropic.messages.stream(PARAMS);
    let seen = "";
    stream.on("text", (delta) => {
      seen += delta;
    });
    await expect(stream.finalMessage()).rejects.toThrow("terminated");
    // message_start, ping, content_block_start, then two 4-character deltas.
    expect(seen).toBe("partial ");
  });

  it("fails on a malformed event line instead of skipping it", async () => {
    t = await openTransport(kind, { turns: [{ text: "hello", malformedAfterEvents: 3 }] });
    const error = await rejection(() => t.anthropic.messages.stream(PARAMS).finalMessage());
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it("raises an in-stream error event as an APIError of the overloaded type", async () => {
    t = await openTransport(kind, { turns: [{ text: "hello world", streamErrorAfterEvents: 4 }] });
    const error = await rejection(() => t.anthropic.messages.stream(PARAMS).finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  it("records the request as sent, headers and cache markers included", async () => {
    t = await openTransport(kind, { turns: [{ text: "ok" }] });
    await t.anthropic.messages
      .create({
        ...PARAMS,
        system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
        stream: true,
      })
      .then(async (s) => {
        for await (const _ of s) {
          // drain
        }
      });
    expect(t.requests).toHaveLength(1);
    const [request] = t.requests;
    expect(request).toMatchObject({
      api: "anthropic-messages",
      method: "POST",
      path: "/v1/messages",
      index: 0,
    });
    expect(request?.headers.authorization).toBe("Bearer test-key");
    expect(request?.headers["anthropic-version"]).toBeDefined();
    expect(request?.body.system).toEqual([
      { type: "text", text: "be brief", cache_control: { type: "ephemeral" } },
    ]);
    expect(JSON.parse(request?.raw ?? "")).toEqual(request?.body);
  });
});
