// The Anthropic adapter end to end through the real SDK against the mock server: content,
// usage and cost, overflow, configuration errors and event translation (requests: anthropic-request.test.ts).
import { type AssistantMessageEvent, type Context, type Model, type StreamOptions, stream } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ProviderAdapter, runProvider } from "../src/driver.js";
import { anthropicAdapter } from "../src/providers/anthropic.js";
import { bodiesSince, claudeModel, drain, hello } from "./helpers.js";

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function model(overrides: Partial<Model> = {}): Model {
  return claudeModel({ baseUrl: server.anthropicBaseUrl, apiKeyEnv: "ANTHROPIC_API_KEY", ...overrides });
}

function run(context: Context, options: StreamOptions = {}, m: Model = model()) {
  return drain(stream(m, context, { apiKey: "test", ...options }));
}

describe("anthropic adapter: streaming", () => {
  it("streams text and ends with done(stop)", async () => {
    server.setScenario({ turns: [{ text: "Hello there, how can I help you today?", chunkSize: 5 }] });
    const { events, message, last } = await run(hello);
    expect(events[0]?.type).toBe("start");
    const deltas = events.filter((e) => e.type === "text_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => (e.type === "text_delta" ? e.delta : "")).join("")).toBe(
      "Hello there, how can I help you today?",
    );
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([{ type: "text", text: "Hello there, how can I help you today?" }]);
    expect(message.stopReason).toBe("stop");
    expect(message.responseId).toMatch(/^msg_/);
    expect(events.filter((e) => e.type === "text_end")).toHaveLength(1);
  });

  it("keeps the partial text exact on a long reply (past the builder's fold size)", async () => {
    const long = Array.from({ length: 4000 }, (_, i) => `line ${i} of a long answer`).join("\n");
    server.setScenario({ turns: [{ text: long, chunkSize: 700 }] });
    let streamed = "";
    const s = stream(model(), hello, { apiKey: "test" });
    for await (const event of s) {
      if (event.type !== "text_delta") continue;
      streamed += event.delta;
      const block = event.partial.content[event.contentIndex];
      const partial = block?.type === "text" ? block.text : "";
      expect(partial.startsWith(streamed)).toBe(true);
      expect(long.startsWith(partial)).toBe(true);
    }
    const message = await s.result();
    expect(long.length).toBeGreaterThan(100_000);
    expect(streamed).toBe(long);
    expect(message.content).toEqual([{ type: "text", text: long }]);
  });

  it("reports usage (input = uncached) and the cost from the model's prices", async () => {
    server.setScenario({
      turns: [{ text: "ok", usage: { input: 100, output: 50, cacheRead: 1000, cacheWrite: 200 } }],
    });
    const { message } = await run(hello);
    expect(message.usage).toMatchObject({
      input: 100,
      output: 50,
      cacheRead: 1000,
      cacheWrite: 200,
      totalTokens: 1350,
    });
    const expected = {
      input: (100 * 3) / 1e6,
      output: (50 * 15) / 1e6,
      cacheRead: (1000 * 0.3) / 1e6,
      cacheWrite: (200 * 3.75) / 1e6,
    };
    expect(message.usage.cost.input).toBeCloseTo(expected.input, 12);
    expect(message.usage.cost.output).toBeCloseTo(expected.output, 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo(expected.cacheRead, 12);
    expect(message.usage.cost.cacheWrite).toBeCloseTo(expected.cacheWrite, 12);
    expect(message.usage.cost.total).toBeCloseTo(
      expected.input + expected.output + expected.cacheRead + expected.cacheWrite,
      12,
    );
  });

  it("maps max_tokens to done(length)", async () => {
    server.setScenario({ turns: [{ text: "cut short", stopReason: "length" }] });
    const { last, message } = await run(hello);
    expect(last).toMatchObject({ type: "done", reason: "length" });
    expect(message.stopReason).toBe("length");
  });

  it("streams signed thinking and sends it back unchanged in the next request", async () => {
    server.setScenario({
      turns: [
        { thinking: "The user greets me; greet back.", thinkingSignature: "sig-abc123", text: "Hello!" },
        { text: "Fine, thanks." },
      ],
    });
    const from = server.requests.length;
    const first = await run(hello, { reasoning: "medium" });
    expect(first.events.some((e) => e.type === "thinking_delta")).toBe(true);
    expect(first.events.find((e) => e.type === "thinking_end")).toMatchObject({
      content: "The user greets me; greet back.",
    });
    expect(first.message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "The user greets me; greet back.",
      signature: "sig-abc123",
      source: { provider: "anthropic", api: "anthropic-messages" },
    });

    const next: Context = {
      ...hello,
      messages: [...hello.messages, first.message, { role: "user", content: "How are you?", timestamp: 3 }],
    };
    const second = await run(next, { reasoning: "medium" });
    expect(second.last).toMatchObject({ type: "done", reason: "stop" });

    const [firstBody, secondBody] = bodiesSince(server, from);
    expect(firstBody?.thinking).toMatchObject({ type: "enabled" });
    const budget = (firstBody?.thinking as { budget_tokens: number } | undefined)?.budget_tokens;
    expect(budget).toBeGreaterThanOrEqual(1024);
    expect(budget).toBeLessThan(firstBody?.max_tokens as number);
    expect(firstBody).not.toHaveProperty("temperature");
    const messages = secondBody?.messages as { role: string; content: unknown }[];
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user greets me; greet back.", signature: "sig-abc123" },
        { type: "text", text: "Hello!" },
      ],
    });
  });

  it("streams two parallel tool calls whose arguments grow chunk by chunk", async () => {
    const readArgs = { path: "/src/components/very/deep/file.ts", limit: 100, offset: 20 };
    const grepArgs = { pattern: "TODO\\(keel\\)", glob: "**/*.ts", caseSensitive: false };
    server.setScenario({
      turns: [
        {
          text: "Reading both.",
          toolCalls: [
            { id: "toolu_read", name: "read", arguments: readArgs },
            { id: "toolu_grep", name: "grep", arguments: grepArgs },
          ],
          chunkSize: 4,
          // One event per timer tick, so each partial is observed before the next chunk lands.
          delayMs: 1,
        },
      ],
    });
    const snapshots = new Map<number, string[]>();
    const ends: Extract<AssistantMessageEvent, { type: "toolcall_end" }>[] = [];
    const s = stream(model(), hello, { apiKey: "test" });
    for await (const event of s) {
      if (event.type === "toolcall_delta") {
        const block = event.partial.content[event.contentIndex];
        const list = snapshots.get(event.contentIndex) ?? [];
        list.push(JSON.stringify(block?.type === "toolCall" ? block.arguments : null));
        snapshots.set(event.contentIndex, list);
      }
      if (event.type === "toolcall_end") ends.push(structuredClone(event));
    }
    const message = await s.result();

    expect(message.stopReason).toBe("toolUse");
    expect(ends.map((e) => e.toolCall)).toEqual([
      { type: "toolCall", id: "toolu_read", name: "read", arguments: readArgs },
      { type: "toolCall", id: "toolu_grep", name: "grep", arguments: grepArgs },
    ]);
    for (const [index, args] of [
      [1, readArgs],
      [2, grepArgs],
    ] as const) {
      const seen = snapshots.get(index) ?? [];
      expect(seen.length).toBeGreaterThan(5);
      // Partial objects appear before the whole one, and never shrink.
      expect(seen.some((s) => s !== JSON.stringify(args) && s !== "{}")).toBe(true);
      for (let i = 1; i < seen.length; i++)
        expect(seen[i]!.length).toBeGreaterThanOrEqual(seen[i - 1]!.length);
      expect(seen.at(-1)).toBe(JSON.stringify(args));
    }
  });
});

describe("anthropic adapter: failures as values", () => {
  it("turns a 400 'prompt is too long' into error(context_overflow)", async () => {
    server.setScenario({ turns: [{ kind: "context_overflow" }] });
    const { last, message } = await run(hello, { retry: { baseDelayMs: 10 } });
    expect(last).toMatchObject({
      type: "error",
      reason: "context_overflow",
      error: { type: "context_overflow" },
    });
    expect(message.stopReason).toBe("context_overflow");
    expect(message.error?.message).toContain("prompt is too long");
  });

  it("turns other 4xx answers into a typed http error without retrying", async () => {
    server.setScenario({ turns: [{ kind: "error", status: 401, message: "invalid x-api-key" }] });
    const from = server.requests.length;
    const { events, last } = await run(hello, { retry: { baseDelayMs: 10 } });
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(last).toMatchObject({ type: "error", reason: "error", error: { type: "http", status: 401 } });
    expect(last?.type === "error" && last.error.message).toContain("invalid x-api-key");
    expect(server.requests.length - from).toBe(1);
  });

  it("names the model's key variable when no API key is available", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    const from = server.requests.length;
    const s = stream(model(), hello);
    const events: AssistantMessageEvent[] = [];
    for await (const e of s) events.push(e);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "error", error: { type: "config" } });
    const last = events.at(-1);
    expect(last?.type === "error" && last.error.message).toContain("ANTHROPIC_API_KEY");
    expect(server.requests.length).toBe(from);
  });

  it("asks adaptive-thinking models for adaptive thinking with an effort, never a budget", async () => {
    server.setScenario({ turns: [{ thinking: "hm", thinkingSignature: "sig", text: "ok" }] });
    const from = server.requests.length;
    const events: AssistantMessageEvent[] = [];
    const adaptive = {
      mode: "adaptive",
      efforts: ["low", "medium", "high"],
      defaultOn: false,
      off: "omit",
    } as const;
    for await (const e of stream(model({ thinking: adaptive }), hello, {
      apiKey: "test",
      reasoning: "minimal",
    }))
      events.push(e);
    expect(events.at(-1)?.type).toBe("done");
    const body = server.requests[from]!.body;
    expect(body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(body.output_config).toEqual({ effort: "low" });
  });

  it("refuses extended thinking that cannot fit under maxTokens, as a config error", async () => {
    const from = server.requests.length;
    const { last } = await run(hello, { reasoning: "high", maxTokens: 1000 });
    expect(last).toMatchObject({ type: "error", error: { type: "config" } });
    expect(server.requests.length).toBe(from);
  });
});

describe("anthropic adapter: translation of events the mock does not script", () => {
  /** Runs the real adapter's translate/classify over scripted events, sent as the SSE frames the SDK decodes. */
  async function translateChunks(
    chunks: ({ type: string } & Record<string, unknown>)[],
    frameName = (chunk: { type: string }) => chunk.type,
  ) {
    const scripted: ProviderAdapter = {
      ...(anthropicAdapter as ProviderAdapter),
      open: async () =>
        (async function* () {
          // A keep-alive ping and an unnamed frame come first: the adapter skips both, as the SDK does.
          yield { event: "ping", data: "{}", raw: [] };
          yield { event: null, data: "{}", raw: [] };
          for (const chunk of chunks) yield { event: frameName(chunk), data: JSON.stringify(chunk), raw: [] };
        })(),
    };
    const s = runProvider(async () => scripted, model(), hello, { apiKey: "test" });
    const events: AssistantMessageEvent[] = [];
    for await (const e of s) events.push(e);
    return { events, message: await s.result() };
  }

  const start = {
    type: "message_start",
    message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: null } },
  };

  it("keeps redacted thinking as opaque data", async () => {
    const { message } = await translateChunks([
      start,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "redacted_thinking", data: "ENCRYPTED" },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } },
    ]);
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "",
        signature: "ENCRYPTED",
        redacted: true,
        source: { provider: "anthropic", api: "anthropic-messages" },
      },
    ]);
    expect(message.usage).toMatchObject({ input: 10, output: 5, cacheRead: 0 });
  });

  it("maps the model_context_window_exceeded stop reason to error(context_overflow), keeping the text", async () => {
    const { events, message } = await translateChunks([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "partial" } },
      {
        type: "message_delta",
        delta: { stop_reason: "model_context_window_exceeded" },
        usage: { output_tokens: 3 },
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "context_overflow" });
    expect(message.content).toEqual([{ type: "text", text: "partial" }]);
  });

  it("fails on an in-band error event passed through as data", async () => {
    // A proxy that names every frame "message": the error arrives as an event, not as an SSE error.
    const { events } = await translateChunks(
      [start, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
      () => "message",
    );
    expect(events.at(-1)).toMatchObject({
      type: "error",
      reason: "error",
      error: { type: "http", status: 529 },
    });
  });
});
