// The driver lifecycle with the Anthropic adapter and the real SDK: retries (retry-after,
// 5xx, in-band errors), mid-stream cuts, aborts and malformed streams all end in one value.
import { getEventListeners } from "node:events";
import { type AssistantMessageEvent, type Context, type Model, type StreamOptions, stream } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeModel, drain } from "./helpers.js";

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});

function model(): Model {
  return claudeModel({
    baseUrl: server.anthropicBaseUrl,
    apiKeyEnv: "ANTHROPIC_API_KEY",
    reasoning: false,
    input: ["text"],
    maxOutput: 8_000,
  });
}

const context: Context = { messages: [{ role: "user", content: "Hi", timestamp: 1 }] };

async function run(options: StreamOptions = {}) {
  const from = server.requests.length;
  const drained = await drain(
    stream(model(), context, { apiKey: "test", retry: { baseDelayMs: 10 }, ...options }),
  );
  return {
    ...drained,
    retries: drained.events.filter((e) => e.type === "retry"),
    requests: server.requests.length - from,
  };
}

const TEXT = "The quick brown fox jumps over the lazy dog.";

describe("anthropic lifecycle: retries", () => {
  it("honours retry-after-ms on a 429, then succeeds", async () => {
    server.setScenario({
      turns: [{ kind: "error", status: 429, headers: { "retry-after-ms": "25" } }, { text: TEXT }],
    });
    const { retries, last, message, requests } = await run();
    expect(retries).toEqual([
      {
        type: "retry",
        attempt: 1,
        maxRetries: 4,
        delayMs: 25,
        error: expect.objectContaining({ type: "http", status: 429, reason: "rate_limit", retryAfterMs: 25 }),
      },
    ]);
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([{ type: "text", text: TEXT }]);
    expect(requests).toBe(2);
  });

  it("reads retry-after in seconds and as an HTTP date", async () => {
    server.setScenario({
      turns: [
        { kind: "error", status: 429, headers: { "retry-after": "0.02" } },
        {
          kind: "error",
          status: 503,
          headers: { "retry-after": new Date(Date.now() - 60_000).toUTCString() },
        },
        { text: TEXT },
      ],
    });
    const { retries, last } = await run();
    expect(retries.map((r) => (r.type === "retry" ? r.delayMs : -1))).toEqual([20, 0]);
    expect(last).toMatchObject({ type: "done", reason: "stop" });
  });

  it("retries a 500 twice with backoff, then succeeds", async () => {
    server.setScenario({
      turns: [{ kind: "error", status: 500 }, { kind: "error", status: 500 }, { text: TEXT }],
    });
    const { retries, last, message, requests } = await run();
    expect(retries.map((r) => (r.type === "retry" ? [r.attempt, r.error.type] : []))).toEqual([
      [1, "http"],
      [2, "http"],
    ]);
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([{ type: "text", text: TEXT }]);
    expect(requests).toBe(3);
  });

  it("gives up after maxRetries with the last http error", async () => {
    server.setScenario({ turns: [], fallback: { kind: "error", status: 529, message: "Overloaded" } });
    const { retries, last, requests } = await run({ retry: { baseDelayMs: 1, maxRetries: 2 } });
    expect(retries).toHaveLength(2);
    expect(requests).toBe(3);
    expect(last).toMatchObject({ type: "error", reason: "error", error: { type: "http", status: 529 } });
  });

  it("retries an in-band overloaded error that arrives before any content", async () => {
    server.setScenario({ turns: [{ text: TEXT, streamErrorAfterEvents: 1 }, { text: TEXT }] });
    const { retries, last, message } = await run();
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ error: { type: "http", status: 529 } });
    expect(last).toMatchObject({ type: "done" });
    expect(message.content).toEqual([{ type: "text", text: TEXT }]);
  });

  it("does not retry an in-band error once text was streamed, and keeps the text", async () => {
    // message_start, ping, content_block_start, two deltas: then the error event.
    server.setScenario({
      turns: [{ text: TEXT, chunkSize: 8, streamErrorAfterEvents: 5 }, { text: "unused" }],
    });
    const { retries, last, message, requests } = await run();
    expect(retries).toHaveLength(0);
    expect(requests).toBe(1);
    expect(last).toMatchObject({ type: "error", reason: "error", error: { type: "http", status: 529 } });
    expect(message.content).toEqual([{ type: "text", text: TEXT.slice(0, 16) }]);
  });
});

describe("anthropic lifecycle: broken streams", () => {
  it("ends a stream cut mid-message with an error that keeps the partial text and usage", async () => {
    server.setScenario({
      turns: [
        { text: TEXT, chunkSize: 8, disconnectAfterEvents: 5, usage: { input: 42, output: 9 } },
        { text: "unused" },
      ],
    });
    const { last, message, retries, requests } = await run();
    expect(retries).toHaveLength(0);
    expect(requests).toBe(1);
    expect(last?.type).toBe("error");
    if (last?.type !== "error") return;
    expect(last.reason).toBe("error");
    expect(last.error.type).toBe("network");
    expect(message.content).toEqual([{ type: "text", text: TEXT.slice(0, 16) }]);
    expect(message.usage.input).toBe(42);
    expect(message.usage.cost.input).toBeCloseTo((42 * 3) / 1e6, 12);
  });

  it("retries a connection cut before any content was streamed", async () => {
    server.setScenario({ turns: [{ text: TEXT, disconnectAfterEvents: 1 }, { text: TEXT }] });
    const { retries, last, message, requests } = await run();
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ error: { type: "network" } });
    expect(requests).toBe(2);
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    expect(message.content).toEqual([{ type: "text", text: TEXT }]);
  });

  it("ends a malformed SSE event in a protocol error, without throwing", async () => {
    server.setScenario({ turns: [{ text: TEXT, chunkSize: 8, malformedAfterEvents: 5 }] });
    const { last, message } = await run();
    expect(last).toMatchObject({ type: "error", reason: "error", error: { type: "protocol" } });
    expect(message.content).toEqual([{ type: "text", text: TEXT.slice(0, 16) }]);
  });

  it("marks invalid JSON in one call's arguments on that call; its siblings and the message stand", async () => {
    server.setScenario({
      turns: [
        {
          toolCalls: [
            { id: "toolu_a", name: "read", arguments: { path: "a.ts" } },
            { id: "toolu_bad", name: "read", arguments: '{"path": "b.ts", oops' },
            { id: "toolu_c", name: "read", arguments: { path: "c.ts" } },
          ],
        },
      ],
    });
    const { last, events, message } = await run();
    expect(last).toMatchObject({ type: "done", reason: "toolUse" });
    const ends = events.flatMap((e) => (e.type === "toolcall_end" ? [e.toolCall] : []));
    expect(ends.map((c) => c.id)).toEqual(["toolu_a", "toolu_bad", "toolu_c"]);
    expect(message.content).toEqual([
      { type: "toolCall", id: "toolu_a", name: "read", arguments: { path: "a.ts" } },
      {
        type: "toolCall",
        id: "toolu_bad",
        name: "read",
        arguments: {},
        argumentsError: expect.stringContaining('the arguments began: {"path": "b.ts", oops'),
      },
      { type: "toolCall", id: "toolu_c", name: "read", arguments: { path: "c.ts" } },
    ]);
  });

  it("aborts mid-stream into error(aborted) with the partial text and usage", async () => {
    server.setScenario({
      turns: [{ text: TEXT.repeat(4), chunkSize: 4, delayMs: 5, usage: { input: 77, output: 40 } }],
    });
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    const s = stream(model(), context, { apiKey: "test", signal: controller.signal });
    for await (const event of s) {
      events.push(event);
      if (event.type === "text_delta" && event.partial.content[0]?.type === "text") {
        if (event.partial.content[0].text.length >= 8) controller.abort();
      }
    }
    const message = await s.result();
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted", error: { type: "aborted" } });
    expect(events.filter((e) => e.type === "error" || e.type === "done")).toHaveLength(1);
    expect(message.stopReason).toBe("aborted");
    const text = message.content[0]?.type === "text" ? message.content[0].text : "";
    expect(text.length).toBeGreaterThanOrEqual(8);
    expect(TEXT.repeat(4).startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(TEXT.length * 4);
    expect(message.usage.input).toBe(77);
    expect(message.usage.cost.input).toBeCloseTo((77 * 3) / 1e6, 12);
  });

  it("leaves no abort listener on a caller's signal that outlives its streams", async () => {
    // One signal for a whole session: each finished stream must unhook from it, or Node warns
    // after ten and every request's objects stay reachable from the signal.
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      server.setScenario({ turns: [{ text: TEXT, chunkSize: 8 }] });
      const { last } = await run({ signal: controller.signal });
      expect(last).toMatchObject({ type: "done" });
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("aborts during a retry wait", async () => {
    server.setScenario({ turns: [{ kind: "error", status: 429, headers: { "retry-after-ms": "5000" } }] });
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    const s = stream(model(), context, { apiKey: "test", signal: controller.signal });
    for await (const event of s) {
      events.push(event);
      if (event.type === "retry") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted" });
  });

  it("reports an unreachable server as a network error after bounded retries", async () => {
    const dead = { ...model(), baseUrl: "http://127.0.0.1:9" };
    const events: AssistantMessageEvent[] = [];
    const s = stream(dead, context, { apiKey: "test", retry: { baseDelayMs: 1, maxRetries: 1 } });
    for await (const event of s) events.push(event);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "error", error: { type: "network" } });
  });
});
