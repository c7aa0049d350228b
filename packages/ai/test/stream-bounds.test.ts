// The driver's bounds on a misbehaving server, in every dialect against the mock: the idle
// timeout (a stream that stops sending is dropped and retried like a cut one while nothing was
// streamed), the reply bound (a reply that never ends is stopped with reply_too_large) and the
// reply's time bound (one that trickles forever is stopped with reply_timeout).
import { type Api, type Model, replyBound, type StreamOptions, stream } from "@keel/ai";
import { type MockServer, type ScenarioStep, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeModel, drain, gptModel, hello } from "./helpers.js";

const APIS: Api[] = ["anthropic-messages", "openai-completions", "openai-responses"];

/** Long enough that a loaded CI machine does not trip it; the tests' faults last far longer. */
const IDLE_MS = 500;

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
  // The SDKs load on a process's first call; that must not count against the first test's timeout.
  for (const api of APIS) {
    server.setScenario({ turns: [{ text: "warm" }] });
    await drain(stream(model(api), hello, { apiKey: "test" }));
  }
});
afterAll(() => server.close());

function model(api: Api, overrides: Partial<Model> = {}): Model {
  return api === "anthropic-messages"
    ? claudeModel({ baseUrl: server.anthropicBaseUrl, reasoning: false, ...overrides })
    : gptModel(api, { baseUrl: server.openaiBaseUrl, reasoning: false, ...overrides });
}

async function run(api: Api, turns: ScenarioStep[], options: StreamOptions = {}, fallback?: ScenarioStep) {
  server.setScenario({ turns, ...(fallback ? { fallback } : {}) });
  const from = server.requests.length;
  const started = Date.now();
  const drained = await drain(
    stream(model(api), hello, {
      apiKey: "test",
      retry: { baseDelayMs: 5 },
      idleTimeoutMs: IDLE_MS,
      ...options,
    }),
  );
  return {
    ...drained,
    ms: Date.now() - started,
    requests: server.requests.length - from,
    retries: drained.events.filter((e) => e.type === "retry"),
  };
}

describe.each(APIS)("idle timeout (%s)", (api) => {
  it("drops a stream that sends headers and then nothing, retries, and succeeds", async () => {
    const r = await run(api, [{ text: "never", stallAfterEvents: 0 }, { text: "second try" }]);
    expect(r.retries).toEqual([
      expect.objectContaining({
        attempt: 1,
        maxRetries: 4,
        error: expect.objectContaining({
          type: "network",
          reason: "idle",
          endpoint: expect.stringMatching(
            /^http:\/\/127\.0\.0\.1:\d+\/v1\/(messages|chat\/completions|responses)$/,
          ),
        }),
      }),
    ]);
    const error = (r.retries[0] as { error: { message: string; endpoint: string } }).error;
    expect(error.message).toBe(
      `The model server sent nothing for 500 ms (the stream's idle timeout), so the connection was dropped (${api === "anthropic-messages" ? "anthropic" : "openai"} at ${error.endpoint}).`,
    );
    expect(r.last).toMatchObject({ type: "done", reason: "stop" });
    expect(r.message.content).toEqual([{ type: "text", text: "second try" }]);
    expect(r.requests).toBe(2);
  });

  it("also times out a server that never sends its headers", async () => {
    const r = await run(api, [{ text: "late", headerDelayMs: 30_000 }, { text: "ok" }]);
    expect(r.retries).toHaveLength(1);
    expect(r.message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(r.ms).toBeLessThan(10_000);
  });

  it("ends in a clean network error once the retries are spent", async () => {
    const stall: ScenarioStep = { text: "never", stallAfterEvents: 0 };
    const r = await run(api, [], { retry: { baseDelayMs: 5, maxRetries: 1 } }, stall);
    expect(r.retries).toHaveLength(1);
    expect(r.requests).toBe(2);
    expect(r.last).toMatchObject({ type: "error", reason: "error", error: { type: "network" } });
    expect(r.message.error?.message).toMatch(/idle timeout/);
  });

  it("does not retry once text reached the caller: the reply ends with what was sent", async () => {
    const frames = { "anthropic-messages": 4, "openai-completions": 2, "openai-responses": 5 }[api];
    const r = await run(api, [
      { text: "partial answer", chunkSize: 8, stallAfterEvents: frames },
      { text: "x" },
    ]);
    expect(r.retries).toEqual([]);
    expect(r.requests).toBe(1);
    expect(r.last).toMatchObject({ type: "error", error: { type: "network" } });
    expect(r.message.content).toEqual([{ type: "text", text: "partial " }]);
  });
});

// The watchdog itself is the driver's, the same for every dialect.
describe("idle timeout (the watchdog)", () => {
  const api: Api = "anthropic-messages";

  it("lets a slow stream that keeps sending run longer than the timeout", async () => {
    // 60 ms between events, a fifth of the timeout: slow, never silent.
    const r = await run(api, [{ text: "a".repeat(40), chunkSize: 4, delayMs: 60 }]);
    expect(r.ms).toBeGreaterThan(IDLE_MS + 200);
    expect(r.retries).toEqual([]);
    expect(r.last).toMatchObject({ type: "done", reason: "stop" });
  });

  it("waits as long as the caller wants with idleTimeoutMs 0, until its abort", async () => {
    server.setScenario({ turns: [{ text: "never", stallAfterEvents: 0 }] });
    const s = stream(model(api), hello, {
      apiKey: "test",
      idleTimeoutMs: 0,
      signal: AbortSignal.timeout(2 * IDLE_MS),
    });
    const { last } = await drain(s);
    expect(last).toMatchObject({ type: "error", reason: "aborted" });
  });
});

describe.each(APIS)("reply bound (%s)", (api) => {
  it("stops an endless reply at maxReplyChars with reply_too_large, keeping the text", async () => {
    const r = await run(api, [{ text: "endless ", chunkSize: 64, endless: true }, { text: "next" }], {
      maxReplyChars: 64 * 1024,
      idleTimeoutMs: 0,
    });
    expect(r.last).toMatchObject({
      type: "error",
      reason: "error",
      error: { type: "reply_too_large", limitChars: 64 * 1024 },
    });
    expect(r.retries).toEqual([]);
    const text = r.message.content[0]?.type === "text" ? r.message.content[0].text : "";
    expect(text.length).toBeLessThanOrEqual(64 * 1024);
    expect(text.length).toBeGreaterThan(60 * 1024);
    // The connection was dropped: the next request gets the next turn at once.
    const after = await run(api, [{ text: "next" }]);
    expect(after.message.content).toEqual([{ type: "text", text: "next" }]);
  });

  it("bounds a reply by its output cap when that is smaller: 64 characters a token", async () => {
    const r = await run(api, [{ text: "endless ", chunkSize: 64, endless: true }], {
      maxTokens: 100,
      idleTimeoutMs: 0,
    });
    expect(r.message.error).toMatchObject({ type: "reply_too_large", limitChars: 6400 });
  });
});

describe.each(APIS)("reply time bound (%s)", (api) => {
  it("stops a reply that keeps trickling (never idle long enough) with reply_timeout, keeping the text", async () => {
    // A chunk every 40 ms: the idle timeout (500 ms) never fires; the total bound does.
    const r = await run(
      api,
      [{ text: "trickle ".repeat(400), chunkSize: 8, delayMs: 40 }, { text: "next" }],
      {
        replyTimeoutMs: 600,
      },
    );
    expect(r.last).toMatchObject({
      type: "error",
      reason: "error",
      error: { type: "reply_timeout", limitMs: 600 },
    });
    expect(r.retries).toEqual([]);
    expect(r.ms).toBeLessThan(5_000);
    const text = r.message.content[0]?.type === "text" ? r.message.content[0].text : "";
    expect(text.startsWith("trickle trickle")).toBe(true);
    expect(text.length).toBeLessThan("trickle ".repeat(400).length);
    expect(JSON.parse(JSON.stringify(r.message.error))).toEqual(r.message.error);
  });

  it("counts the waits between retries: a server that keeps failing cannot stretch a reply past it", async () => {
    const fail = { kind: "error" as const, status: 503 };
    const r = await run(api, [fail, fail, fail, { text: "late" }], {
      replyTimeoutMs: 300,
      retry: { baseDelayMs: 1_000, maxRetries: 4 },
    });
    expect(r.message.error).toMatchObject({ type: "reply_timeout", limitMs: 300 });
    expect(r.ms).toBeLessThan(1_000);
  });
});

describe("replyBound", () => {
  it("is the smaller of the hard cap and 64 characters per output token", () => {
    const m = claudeModel({ maxOutput: 128_000 });
    expect(replyBound(m, {})).toBe(8_192_000);
    expect(replyBound(m, { maxReplyChars: 1_000_000 })).toBe(1_000_000);
    expect(replyBound(m, { maxTokens: 10 })).toBe(640);
    expect(replyBound(claudeModel({ maxOutput: 1_000_000 }), {})).toBe(16 * 1024 * 1024);
  });
});
