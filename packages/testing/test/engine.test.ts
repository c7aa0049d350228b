// Scenario semantics shared by both transports: routing, turn order, reactive steps,
// fallback, default usage, delays and aborts. Uses the faux fetch: no socket needed.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { createFauxFetch, FAUX_ORIGIN, fauxModel, type Scenario, startMockServer } from "../src/index.js";
import { checkScenario } from "../src/validate.js";

function client(scenario: Scenario) {
  const faux = createFauxFetch(scenario);
  const post = async (path: string, body: unknown, init: RequestInit = {}) => {
    const response = await faux.fetch(`${FAUX_ORIGIN}${path}`, {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...init,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  return { faux, post };
}

describe("routing", () => {
  it("answers unknown paths with a 404 JSON naming the served routes, without recording", async () => {
    const { faux, post } = client({ turns: [{ text: "unused" }] });
    const { status, json } = await post("/v1/embeddings", {});
    expect(status).toBe(404);
    expect(JSON.stringify(json)).toContain(
      "POST /v1/messages, POST /v1/chat/completions, POST /v1/responses",
    );
    expect(faux.requests).toEqual([]);
  });

  it("rejects a body that is not JSON in the dialect's error shape, without consuming a turn", async () => {
    const { faux, post } = client({ turns: [{ text: "kept" }] });
    const bad = await post("/v1/messages", "{oops");
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const good = await post("/v1/messages", { model: "m" });
    expect(good.json.content).toEqual([{ type: "text", text: "kept" }]);
    expect(faux.requests).toHaveLength(1);
  });

  it("answers GET on a model route with 405", async () => {
    const { faux } = client({ turns: [] });
    const response = await faux.fetch(`${FAUX_ORIGIN}/v1/chat/completions`);
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
  });
});

describe("error turns", () => {
  it("sends a scripted body verbatim, and lets the type and code be overridden", async () => {
    const { post } = client({
      turns: [
        { kind: "error", status: 418, body: { anything: ["goes"] } },
        {
          kind: "error",
          status: 400,
          errorType: "invalid_request_error",
          code: "invalid_prompt",
          message: "no",
        },
        { kind: "error", status: 529 },
      ],
    });
    expect(await post("/v1/messages", {})).toEqual({ status: 418, json: { anything: ["goes"] } });
    expect((await post("/v1/responses", {})).json).toEqual({
      error: { message: "no", type: "invalid_request_error", param: null, code: "invalid_prompt" },
    });
    expect((await post("/v1/messages", {})).json).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "keel mock server: scripted 529 error" },
    });
  });
});

describe("turn order", () => {
  it("consumes one turn per request whatever the endpoint, indexing requests in order", async () => {
    const { faux, post } = client({ turns: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    await post("/v1/messages", { model: "m" });
    const chat = await post("/v1/chat/completions", { model: "m" });
    const responses = await post("/v1/responses", { model: "m" });
    expect(chat.json.choices).toMatchObject([{ message: { content: "two" } }]);
    expect(responses.json.output).toMatchObject([{ content: [{ text: "three" }] }]);
    expect(faux.requests.map((r) => [r.index, r.api])).toEqual([
      [0, "anthropic-messages"],
      [1, "openai-completions"],
      [2, "openai-responses"],
    ]);
  });

  it("lets a step choose its turn from the recorded request", async () => {
    const { post } = client({
      turns: [(request) => ({ text: `you sent ${(request.body.messages as unknown[]).length} messages` })],
    });
    const { json } = await post("/v1/messages", { messages: [{}, {}, {}] });
    expect(json.content).toEqual([{ type: "text", text: "you sent 3 messages" }]);
  });

  it("uses the fallback for every request after the turns, and a clear 500 without one", async () => {
    const { faux, post } = client({ turns: [{ text: "first" }], fallback: { text: "again" } });
    await post("/v1/messages", {});
    expect((await post("/v1/messages", {})).json.content).toEqual([{ type: "text", text: "again" }]);
    expect((await post("/v1/messages", {})).json.content).toEqual([{ type: "text", text: "again" }]);

    faux.setScenario({ turns: [] });
    const exhausted = await post("/v1/chat/completions", {});
    expect(exhausted.status).toBe(500);
    expect(JSON.stringify(exhausted.json)).toContain(
      "scenario exhausted: 0 turn(s) scripted, this is request #3",
    );
  });

  it("rewinds on setScenario while keeping the request log", async () => {
    const { faux, post } = client({ turns: [{ text: "a" }] });
    await post("/v1/messages", {});
    faux.setScenario({ turns: [{ text: "b" }] });
    expect((await post("/v1/messages", {})).json.content).toEqual([{ type: "text", text: "b" }]);
    expect(faux.requests.map((r) => r.index)).toEqual([0, 1]);
  });

  it("reports a step that throws as a 500 naming the request", async () => {
    const { post } = client({
      turns: [
        () => {
          throw new Error("bad script");
        },
      ],
    });
    const { status, json } = await post("/v1/messages", {});
    expect(status).toBe(500);
    expect(JSON.stringify(json)).toContain("request #0 threw: Error: bad script");
  });

  it("answers a turn it cannot render with a 500 naming the request, and serves the next one", async () => {
    const { post } = client({
      turns: [{ toolCalls: [{ name: "read" } as never] }, { text: "fine" }],
    });
    const broken = await post("/v1/messages", {});
    expect(broken.status).toBe(500);
    expect(JSON.stringify(broken.json)).toContain("turn for request #0 cannot be rendered");
    expect((await post("/v1/messages", {})).json.content).toEqual([{ type: "text", text: "fine" }]);
  });
});

describe("usage", () => {
  it("derives usage from request and reply sizes (about 4 characters a token), deterministically", async () => {
    const { faux, post } = client({ turns: [{ text: "x".repeat(40) }, { text: "x".repeat(40) }] });
    const body = { model: "m", messages: [{ role: "user", content: "y".repeat(100) }] };
    const first = await post("/v1/messages", body);
    const second = await post("/v1/messages", body);
    const raw = faux.requests[0]?.raw ?? "";
    expect(first.json.usage).toEqual({
      input_tokens: Math.ceil(raw.length / 4),
      output_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(second.json.usage).toEqual(first.json.usage);
  });
});

describe("timing and cancellation", () => {
  it("honours headerDelayMs and delayMs without changing the content", async () => {
    const { faux } = client({
      turns: [{ text: "slow but sure", chunkSize: 4, delayMs: 2, headerDelayMs: 5 }],
    });
    const sdk = new Anthropic({ apiKey: "k", baseURL: FAUX_ORIGIN, fetch: faux.fetch, maxRetries: 0 });
    const message = await sdk.messages
      .stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "slow but sure" })]);
  });

  it("aborting the faux fetch mid-stream fails the body with the abort reason", async () => {
    const { faux } = client({ turns: [{ text: "a long answer", chunkSize: 1, delayMs: 5 }] });
    const controller = new AbortController();
    const response = await faux.fetch(`${FAUX_ORIGIN}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("the server closes promptly even while a stream is still open", async () => {
    const server = await startMockServer({ turns: [{ text: "never ends", chunkSize: 1, delayMs: 60_000 }] });
    // Headers are flushed at once; the first event is 60 s away, so close() must not wait for it.
    const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: '{"stream":true}' });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await server.close();
    await expect(reader.read()).rejects.toThrow();
    await server.close();
  });
});

describe("fauxModel", () => {
  it("points each API at the faux origin with the matching provider", () => {
    expect(fauxModel("anthropic-messages")).toMatchObject({
      api: "anthropic-messages",
      provider: "anthropic",
      baseUrl: "http://faux.keel.invalid",
    });
    expect(fauxModel("openai-responses", { id: "gpt-x", reasoning: false })).toMatchObject({
      id: "gpt-x",
      provider: "openai",
      baseUrl: "http://faux.keel.invalid/v1",
      reasoning: false,
    });
  });
});

describe("checkScenario (scenarios arriving as JSON)", () => {
  it("names a tool call without a name or arguments by its place", () => {
    expect(checkScenario({ turns: [{ text: "a" }, { toolCalls: [{ name: "read" }] }] })).toEqual({
      ok: false,
      error: {
        type: "invalid_scenario",
        message: 'turns[1].toolCalls[0] needs "arguments": an object, or a string sent verbatim',
      },
    });
    expect(checkScenario({ turns: [], fallback: { toolCalls: [{ arguments: {} }] } })).toEqual({
      ok: false,
      error: { type: "invalid_scenario", message: 'fallback.toolCalls[0] needs a string "name"' },
    });
    expect(checkScenario({ turns: [{ toolCalls: { name: "x" } }] })).toMatchObject({ ok: false });
    const good = {
      turns: [
        {
          toolCalls: [
            { name: "read", arguments: { path: "a" } },
            { name: "x", arguments: "{" },
          ],
        },
      ],
    };
    expect(checkScenario(good)).toEqual({ ok: true, scenario: good });
  });
});
