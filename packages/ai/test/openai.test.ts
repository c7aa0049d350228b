// Both OpenAI dialects (Chat Completions and Responses) end to end through the real `openai` SDK
// against the mock server: content, tool calls, usage and cost, retries, failures as values.
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type Context,
  type Model,
  type StreamOptions,
  stream,
} from "@keel/ai";
import { createFauxFetch, type MockServer, startMockServer } from "@keel/testing";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { drain, gptModel, hello, type OpenAIApi, textBlock } from "./helpers.js";

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});

function model(api: OpenAIApi, overrides: Partial<Model> = {}): Model {
  return gptModel(api, { baseUrl: server.openaiBaseUrl, ...overrides });
}

const tools: Context["tools"] = [
  {
    name: "read",
    description: "Read a file",
    parameters: Type.Object({ path: Type.String(), offset: Type.Optional(Type.Number()) }),
  },
];

function run(m: Model, context: Context, options: StreamOptions = {}) {
  return drain(stream(m, context, { apiKey: "test", ...options }));
}

function lastBody(): Record<string, unknown> {
  const request = server.requests.at(-1);
  if (!request) throw new Error("no request recorded");
  return request.body;
}

describe.each<OpenAIApi>(["openai-completions", "openai-responses"])("%s", (api) => {
  it("streams text in deltas and ends with done(stop)", async () => {
    server.setScenario({ turns: [{ text: "Hello there, how can I help you today?", chunkSize: 5 }] });
    const { events, message, last } = await run(model(api), hello);
    expect(events[0]?.type).toBe("start");
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe("Hello there, how can I help you today?");
    expect(events.filter((e) => e.type === "text_end")).toHaveLength(1);
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([textBlock(api, "Hello there, how can I help you today?")]);
    expect(message.responseId).toMatch(api === "openai-completions" ? /^chatcmpl-/ : /^resp_/);
    expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
  });

  it("reports usage with cached input split out, reasoning tokens and cost", async () => {
    server.setScenario({
      turns: [{ text: "ok", usage: { input: 100, output: 50, cacheRead: 1000, reasoning: 20 } }],
    });
    const { message } = await run(model(api), hello);
    expect(message.usage).toMatchObject({
      input: 100,
      output: 50,
      cacheRead: 1000,
      cacheWrite: 0,
      reasoning: 20,
      totalTokens: 1150,
    });
    const expected = (100 * 2 + 50 * 8 + 1000 * 0.5) / 1e6;
    expect(message.usage.cost.total).toBeCloseTo(expected, 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo((1000 * 0.5) / 1e6, 12);
  });

  it("streams two parallel tool calls whose arguments grow chunk by chunk and are exact at the end", async () => {
    const first = { path: "src/index.ts", offset: 120 };
    const second = { path: "packages/ai/src/providers/openai-completions.ts" };
    server.setScenario({
      turns: [
        {
          text: "Reading both.",
          toolCalls: [
            { id: "call_one", name: "read", arguments: first },
            { id: "call_two", name: "read", arguments: second },
          ],
          chunkSize: 3,
        },
      ],
    });
    // Partials are live objects: read them while streaming, not afterwards.
    const events: AssistantMessageEvent[] = [];
    const partialPaths: string[] = [];
    const s = stream(model(api), { ...hello, tools }, { apiKey: "test" });
    for await (const e of s) {
      events.push(e);
      if (e.type !== "toolcall_delta") continue;
      const block = e.partial.content[e.contentIndex];
      if (block?.type === "toolCall" && block.id.startsWith("call_two")) {
        if (typeof block.arguments.path === "string") partialPaths.push(block.arguments.path);
      }
    }
    const message = await s.result();
    expect(events.at(-1)).toMatchObject({ type: "done", reason: "toolUse" });

    const calls = message.content.filter((c) => c.type === "toolCall");
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([
      ["read", first],
      ["read", second],
    ]);
    if (api === "openai-completions") expect(calls.map((c) => c.id)).toEqual(["call_one", "call_two"]);
    else expect(calls.map((c) => c.id.split("|")[0])).toEqual(["call_one", "call_two"]);

    // The partial path grows through prefixes of the final one.
    expect(events.filter((e) => e.type === "toolcall_delta").length).toBeGreaterThan(10);
    expect(new Set(partialPaths).size).toBeGreaterThan(3);
    for (const p of partialPaths) expect(second.path.startsWith(p)).toBe(true);

    const ends = events.flatMap((e) => (e.type === "toolcall_end" ? [e.toolCall] : []));
    expect(ends.map((c) => c.arguments)).toEqual([first, second]);
    expect(ends.map((c) => c.id)).toEqual(calls.map((c) => c.id));

    // The tools went out as functions with the TypeBox schema.
    const body = lastBody();
    const sent = JSON.stringify(body.tools);
    expect(sent).toContain('"name":"read"');
    expect(sent).toContain('"required":["path"]');
  });

  it("retries a 429 after the server's retry-after, then succeeds", async () => {
    const before = server.requests.length;
    server.setScenario({
      turns: [
        { kind: "error", status: 429, headers: { "retry-after-ms": "15" }, message: "Slow down" },
        { text: "after the wait" },
      ],
    });
    const { events, message, last } = await run(model(api), hello);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 15, error: { type: "http", status: 429 } });
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([textBlock(api, "after the wait")]);
    expect(server.requests.length - before).toBe(2);
  });

  it("retries 500 twice with backoff, then succeeds", async () => {
    const before = server.requests.length;
    server.setScenario({
      turns: [{ kind: "error", status: 500 }, { kind: "error", status: 500 }, { text: "third time" }],
    });
    const { events, message } = await run(model(api), hello, { retry: { baseDelayMs: 10 } });
    const retries = events.filter((e) => e.type === "retry");
    expect(retries.map((r) => (r.type === "retry" ? [r.attempt, r.error.type] : []))).toEqual([
      [1, "http"],
      [2, "http"],
    ]);
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([textBlock(api, "third time")]);
    expect(server.requests.length - before).toBe(3);
  });

  it("gives up on a non-retryable 401 with the status in the error", async () => {
    server.setScenario({ turns: [{ kind: "error", status: 401, message: "Incorrect API key provided" }] });
    const { events, message, last } = await run(model(api), hello);
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(last).toMatchObject({ type: "error", reason: "error" });
    expect(message.error).toMatchObject({ type: "http", status: 401 });
    expect(message.error?.message).toContain("Incorrect API key provided");
  });

  it("keeps the partial message when the stream is cut mid-message", async () => {
    server.setScenario({
      turns: [
        { text: "This answer will be cut somewhere in the middle.", chunkSize: 4, disconnectAfterEvents: 6 },
      ],
    });
    const { message, last } = await run(model(api), hello);
    expect(last).toMatchObject({ type: "error", reason: "error" });
    expect(message.stopReason).toBe("error");
    expect(message.error?.type).toBe("network");
    const text = message.content[0];
    expect(text?.type).toBe("text");
    if (text?.type === "text") {
      expect(text.text.length).toBeGreaterThan(0);
      expect("This answer will be cut somewhere in the middle.".startsWith(text.text)).toBe(true);
      expect(text.text).not.toBe("This answer will be cut somewhere in the middle.");
    }
  });

  it("ends with error{aborted} when aborted mid-stream, keeping what arrived", async () => {
    server.setScenario({
      turns: [{ text: "a slow answer that will never finish streaming", chunkSize: 3, delayMs: 20 }],
    });
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    const s = stream(model(api), hello, { apiKey: "test", signal: controller.signal });
    for await (const event of s) {
      events.push(event);
      if (event.type === "text_delta" && events.filter((e) => e.type === "text_delta").length === 2) {
        controller.abort();
      }
    }
    const message = await s.result();
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted", error: { type: "aborted" } });
    expect(message.stopReason).toBe("aborted");
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
  });

  it("turns malformed stream data into an error value", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      server.setScenario({
        turns: [{ text: "some text before garbage", chunkSize: 4, malformedAfterEvents: 4 }],
      });
      const { message, last } = await run(model(api), hello);
      expect(last).toMatchObject({ type: "error", reason: "error" });
      expect(message.error?.type).toBe("protocol");
      expect(message.error?.message).toMatch(/malformed/);
    } finally {
      quiet.mockRestore();
    }
  });

  it("marks invalid tool-call JSON on that call only; the other call and the message stand", async () => {
    server.setScenario({
      turns: [
        {
          toolCalls: [
            { id: "call_bad", name: "read", arguments: '{"path": "a.ts", ' },
            { id: "call_ok", name: "read", arguments: { path: "b.ts" } },
          ],
        },
      ],
    });
    const { events, message, last } = await run(model(api), { ...hello, tools });
    expect(last).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.error).toBeUndefined();
    const calls = message.content.filter((c) => c.type === "toolCall");
    expect(calls.map((c) => [c.name, c.arguments, c.argumentsError !== undefined])).toEqual([
      ["read", {}, true],
      ["read", { path: "b.ts" }, false],
    ]);
    expect(events.filter((e) => e.type === "toolcall_end")).toHaveLength(2);
  });

  it("reports an in-stream server error as an error value", async () => {
    server.setScenario({
      turns: [{ text: "partial then trouble", streamErrorAfterEvents: 3, streamErrorMessage: "Overloaded" }],
    });
    const { message, last } = await run(model(api), hello);
    expect(last).toMatchObject({ type: "error", reason: "error" });
    expect(message.error?.type).toBe("protocol");
    expect(message.error?.message).toContain("Overloaded");
  });

  it("normalises the context-length error into context_overflow", async () => {
    server.setScenario({ turns: [{ kind: "context_overflow" }] });
    const { events, message, last } = await run(model(api), hello);
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(last).toMatchObject({
      type: "error",
      reason: "context_overflow",
      error: { type: "context_overflow" },
    });
    expect(message.stopReason).toBe("context_overflow");
  });

  it("routes prompt caching by session id and shows the exact payload to onPayload", async () => {
    server.setScenario({ turns: [{ text: "cached" }] });
    let payload: unknown;
    await run(model(api), hello, { sessionId: "session-1234", onPayload: (p) => (payload = p) });
    const body = lastBody();
    expect(body.prompt_cache_key).toBe("session-1234");
    expect(JSON.parse(JSON.stringify(payload))).toEqual(body);
  });

  it("maps a max-tokens stop to done(length)", async () => {
    server.setScenario({ turns: [{ text: "cut short by the limit", stopReason: "length" }] });
    const { message, last } = await run(model(api), hello, { maxTokens: 5 });
    expect(last).toMatchObject({ type: "done", reason: "length" });
    expect(message.content).toEqual([textBlock(api, "cut short by the limit")]);
  });

  it("works over a caller-supplied fetch (the in-process faux fetch)", async () => {
    const faux = createFauxFetch({ turns: [{ text: "no sockets involved" }] });
    const { message } = await run(model(api, { baseUrl: "http://faux.keel.invalid/v1" }), hello, {
      fetch: faux.fetch,
    });
    expect(message.content).toEqual([textBlock(api, "no sockets involved")]);
  });
});

describe("openai-completions: thinking", () => {
  const compatModel = () =>
    model("openai-completions", {
      provider: "deepseek",
      compat: {
        reasoningField: "reasoning_content",
        maxTokensField: "max_tokens",
        supportsPromptCacheKey: true,
      },
    });

  it("streams reasoning_content as a thinking block before the text and replays it in the same field", async () => {
    server.setScenario({
      turns: [
        { thinking: "The user greets me; answer briefly.", text: "Hello!", chunkSize: 6 },
        { text: "Second answer" },
      ],
    });
    const { events, message } = await run(compatModel(), hello, { reasoning: "high" });
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "The user greets me; answer briefly.",
        source: { provider: "deepseek", api: "openai-completions" },
      },
      { type: "text", text: "Hello!" },
    ]);
    const order = events.map((e) => e.type).filter((t) => t.endsWith("_start") || t.endsWith("_end"));
    expect(order).toEqual(["thinking_start", "thinking_end", "text_start", "text_end"]);
    const first = lastBody();
    expect(first.max_tokens).toBe(16_000);
    expect(first.max_completion_tokens).toBeUndefined();

    await run(compatModel(), {
      ...hello,
      messages: [...hello.messages, message, { role: "user", content: "And again?", timestamp: 3 }],
    });
    const messages = lastBody().messages as Record<string, unknown>[];
    expect(messages[0]).toEqual({ role: "system", content: "You are terse." });
    expect(messages[2]).toEqual({
      role: "assistant",
      content: "Hello!",
      reasoning_content: "The user greets me; answer briefly.",
    });
  });

  it("sends reasoning_effort, max_completion_tokens and the developer role to OpenAI reasoning models", async () => {
    server.setScenario({ turns: [{ text: "ok" }] });
    const m = model("openai-completions", { compat: { supportsDeveloperRole: true } });
    await run(m, hello, { reasoning: "low", maxTokens: 1000 });
    const body = lastBody();
    expect(body.reasoning_effort).toBe("low");
    expect(body.max_completion_tokens).toBe(1000);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect((body.messages as unknown[])[0]).toEqual({ role: "developer", content: "You are terse." });
  });

  it("finishes on the finish reason alone when the server sends no usage chunk", async () => {
    server.setScenario({ turns: [{ text: "no usage here" }] });
    const m = model("openai-completions", {
      provider: "ollama",
      compat: { supportsUsageInStreaming: false },
    });
    const { message, last } = await run(m, hello, { sessionId: "s" });
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([{ type: "text", text: "no usage here" }]);
    const body = lastBody();
    expect(body.stream_options).toBeUndefined();
    expect(body.prompt_cache_key).toBeUndefined();
  });
});

describe("openai-completions: servers that bend the wire format", () => {
  /** A fetch answering with these SSE data payloads, as some compatible servers send them. */
  function sse(payloads: unknown[]): typeof fetch {
    const text = payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("");
    return async () => new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
  }
  const chunk = (delta: unknown, finish: string | null = null, usage: unknown = null) => ({
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage,
  });

  it("separates tool calls sent whole at index 0 with distinct ids, and reads `reasoning` deltas", async () => {
    const fetch = sse([
      chunk({ role: "assistant", reasoning: "two reads" }),
      chunk({ tool_calls: [{ index: 0, id: "a1", function: { name: "read", arguments: '{"path":"x"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b2", function: { name: "read", arguments: '{"path":"y"}' } }] }),
      chunk({}, "stop", { prompt_tokens: 7, completion_tokens: 3, prompt_cache_hit_tokens: 4 }),
      "[DONE]",
    ]);
    const { message, last } = await run(model("openai-completions", { provider: "gemini" }), hello, {
      fetch,
    });
    expect(last).toMatchObject({ type: "done", reason: "toolUse" });
    expect(message.content).toEqual([
      { type: "thinking", thinking: "two reads", source: { provider: "gemini", api: "openai-completions" } },
      { type: "toolCall", id: "a1", name: "read", arguments: { path: "x" } },
      { type: "toolCall", id: "b2", name: "read", arguments: { path: "y" } },
    ]);
    expect(message.usage).toMatchObject({ input: 3, cacheRead: 4, output: 3 });
  });

  it("reports a stream that ends without a finish reason as an error, keeping the text", async () => {
    const fetch = sse([chunk({ content: "half an ans" })]);
    const { message, last } = await run(model("openai-completions"), hello, { fetch });
    expect(last).toMatchObject({ type: "error", reason: "error", error: { type: "protocol" } });
    expect(message.content).toEqual([{ type: "text", text: "half an ans" }]);
  });
});

describe("openai-responses: reasoning", () => {
  it("streams the reasoning summary as thinking and sends the encrypted item back next turn", async () => {
    server.setScenario({
      turns: [
        {
          thinking: "Look at the file first.",
          thinkingSignature: "enc_opaque_blob_123",
          toolCalls: [{ id: "call_r1", name: "read", arguments: { path: "a.ts" } }],
          chunkSize: 5,
        },
        { text: "Done." },
      ],
    });
    const m = model("openai-responses");
    const first = await run(m, { ...hello, tools }, { reasoning: "medium", sessionId: "sess-r" });
    const body = lastBody();
    expect(body.store).toBe(false);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(body.instructions).toBe("You are terse.");
    expect(body.max_output_tokens).toBe(16_000);

    const message: AssistantMessage = first.message;
    const [thinking, call] = message.content;
    expect(thinking).toMatchObject({ type: "thinking", thinking: "Look at the file first." });
    const item = JSON.parse(thinking?.type === "thinking" ? (thinking.signature ?? "") : "");
    expect(item).toMatchObject({ type: "reasoning", encrypted_content: "enc_opaque_blob_123" });
    expect(call).toMatchObject({ type: "toolCall", name: "read", arguments: { path: "a.ts" } });
    const callId = call?.type === "toolCall" ? call.id : "";
    expect(callId).toMatch(/^call_r1\|fc_/);

    await run(
      m,
      {
        ...hello,
        tools,
        messages: [
          ...hello.messages,
          message,
          {
            role: "toolResult",
            toolCallId: callId,
            toolName: "read",
            content: [{ type: "text", text: "export {}" }],
            isError: false,
            timestamp: 4,
          },
        ],
      },
      { reasoning: "medium" },
    );
    const input = lastBody().input as Record<string, unknown>[];
    expect(input).toEqual([
      { role: "user", content: "Hi" },
      item,
      {
        type: "function_call",
        call_id: "call_r1",
        name: "read",
        arguments: '{"path":"a.ts"}',
        id: callId.split("|")[1],
      },
      { type: "function_call_output", call_id: "call_r1", output: "export {}" },
    ]);
  });
});
