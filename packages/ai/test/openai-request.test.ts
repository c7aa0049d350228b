// The OpenAI adapters' internals on purpose: request conversion details (images, compat flags)
// and the one place errors are classified, checked without a server.
import { type Context, emptyUsage, type Message, type Model } from "@keel/ai";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import { buildChatParams } from "../src/providers/openai-completions.js";
import { buildResponsesParams } from "../src/providers/openai-responses.js";
import { classifyOpenAIError } from "../src/providers/openai-shared.js";
import { retryAfter } from "../src/providers/retry-after.js";
import { gptModel, type OpenAIApi } from "./helpers.js";

function model(api: OpenAIApi, overrides: Partial<Model> = {}): Model {
  return gptModel(api, {
    reasoning: false,
    maxOutput: 4096,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    ...overrides,
  });
}

const PNG = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };

/** A tool call whose result carries an image, then a user turn. */
const withScreenshot: Message[] = [
  { role: "user", content: [{ type: "text", text: "Look" }, PNG], timestamp: 1 },
  {
    role: "assistant",
    content: [{ type: "toolCall", id: "call_1", name: "screenshot", arguments: {} }],
    api: "openai-completions",
    provider: "openai",
    model: "gpt-test",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 2,
  },
  {
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "screenshot",
    content: [{ type: "text", text: "captured" }, PNG],
    isError: false,
    timestamp: 3,
  },
  { role: "user", content: "What do you see?", timestamp: 4 },
];

const base = { apiKey: "k" };

describe("chat completions request", () => {
  it("sends tool-result images as a user message after the tool messages", () => {
    const context: Context = { messages: withScreenshot };
    const params = buildChatParams(model("openai-completions"), context, { ...base, sessionId: "s1" });
    expect(params.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "user"]);
    expect(params.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    });
    expect(params.messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "captured" });
    expect(params.messages[3]).toMatchObject({
      role: "user",
      content: [
        { type: "text" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    });
    expect(params.prompt_cache_key).toBe("s1");
    expect(params.reasoning_effort).toBeUndefined();
  });

  it("replaces images with a note for a text-only model, and leaves out what compat forbids", () => {
    const m = model("openai-completions", { provider: "ollama", input: ["text"] });
    const params = buildChatParams(
      m,
      { systemPrompt: "sys", messages: withScreenshot },
      { ...base, sessionId: "s1" },
    );
    expect(JSON.stringify(params)).not.toContain("image_url");
    expect(JSON.stringify(params)).toContain("does not accept images");
    expect(params.messages[0]).toEqual({ role: "system", content: "sys" });
    expect(params.max_tokens).toBe(4096);
    expect(params.prompt_cache_key).toBeUndefined();
  });

  it("sends no cache key when caching is off", () => {
    const params = buildChatParams(
      model("openai-completions"),
      { messages: withScreenshot },
      {
        ...base,
        sessionId: "s1",
        cacheRetention: "none",
      },
    );
    expect(params.prompt_cache_key).toBeUndefined();
  });
});

describe("responses request", () => {
  it("sends images as input_image parts, tool-result images after the outputs", () => {
    const params = buildResponsesParams(model("openai-responses"), { messages: withScreenshot }, base);
    expect(params.input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
      { type: "function_call", call_id: "call_1", name: "screenshot", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "captured" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "Images returned by the tools above:" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
      { role: "user", content: "What do you see?" },
    ]);
    // A model the catalog does not know may reason: its reasoning is asked for encrypted (under
    // store: false that is the only way it can go back), and no effort is sent.
    expect(params.include).toEqual(["reasoning.encrypted_content"]);
    expect(params.reasoning).toBeUndefined();
    expect(params.store).toBe(false);
  });

  it("asks no encrypted reasoning of a catalog model that does not reason (the API would refuse it)", () => {
    const known = {
      ...model("openai-responses"),
      source: { url: "https://example.test", checked: "2026-12-01" },
    };
    const params = buildResponsesParams(known, { messages: withScreenshot }, base);
    expect(params.include).toBeUndefined();
    expect(params.reasoning).toBeUndefined();
  });
});

describe("error classification", () => {
  const headers = (h: Record<string, string>) => new Headers(h);

  it("parses retry-after as milliseconds, seconds or an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfter(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfter(headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(retryAfter(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfter(headers({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0);
    expect(retryAfter(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfter(headers({ "retry-after": "  " }), now)).toBeUndefined();
    expect(retryAfter(headers({}), now)).toBeUndefined();
  });

  it("types HTTP errors with status and retry-after", () => {
    const e = APIError.generate(
      429,
      { error: { message: "Rate limited" } },
      undefined,
      headers({ "retry-after": "3" }),
    );
    expect(classifyOpenAIError(e)).toEqual({
      type: "http",
      status: 429,
      reason: "rate_limit",
      message: "Rate limited",
      retryAfterMs: 3000,
    });
  });

  it("recognises context overflow by OpenAI's code and by compatible servers' wording", () => {
    const openai = APIError.generate(
      400,
      { error: { message: "too long", code: "context_length_exceeded" } },
      undefined,
      headers({}),
    );
    const vllm = APIError.generate(
      400,
      {
        error: {
          message:
            "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.",
        },
      },
      undefined,
      headers({}),
    );
    const llamaCpp = APIError.generate(
      400,
      {
        error: {
          message: "the request exceeds the available context size",
          type: "exceed_context_size_error",
        },
      },
      undefined,
      headers({}),
    );
    for (const e of [openai, vllm, llamaCpp]) expect(classifyOpenAIError(e).type).toBe("context_overflow");
    const plain400 = APIError.generate(
      400,
      { error: { message: "Invalid tool schema" } },
      undefined,
      headers({}),
    );
    expect(classifyOpenAIError(plain400)).toMatchObject({ type: "http", status: 400 });
  });

  it("tells aborts, connection failures, cut streams and garbage apart", () => {
    expect(classifyOpenAIError(new APIUserAbortError()).type).toBe("aborted");
    expect(classifyOpenAIError(new APIConnectionError({ message: "refused" })).type).toBe("network");
    expect(classifyOpenAIError(new APIConnectionTimeoutError()).type).toBe("network");
    const cut = new TypeError("terminated", {
      cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
    });
    expect(classifyOpenAIError(cut)).toMatchObject({ type: "network" });
    expect(classifyOpenAIError(new SyntaxError("Unexpected end of JSON input")).type).toBe("protocol");
    expect(classifyOpenAIError("weird").type).toBe("protocol");
  });
});
