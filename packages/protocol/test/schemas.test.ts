// The schemas accept the messages, events and models Keel makes and refuse what is not one: a
// missing field, a field the vocabulary does not have, a value outside its set. (@keel/ai's tests
// check everything its providers emit, from the mock server and recorded real streams, too.)
import { type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  AssistantMessageEventSchema,
  AssistantMessageSchema,
  type Context,
  ContextSchema,
  emptyUsage,
  type Message,
  MessageSchema,
  type Model,
  ModelSchema,
  UsageSchema,
} from "../src/index.js";

const assistant: AssistantMessage = {
  role: "assistant",
  content: [
    {
      type: "thinking",
      thinking: "plan",
      signature: "sig",
      source: { provider: "anthropic", api: "anthropic-messages" },
    },
    { type: "text", text: "Reading.", citations: [{ url: "https://example.com", citedText: "x" }] },
    { type: "toolCall", id: "toolu_1", name: "Read", arguments: { path: "a.ts" } },
    {
      type: "serverTool",
      name: "web_search",
      id: "srvtoolu_1",
      input: { query: "q" },
      sources: [{ url: "https://example.com", title: "Example" }],
      raw: { type: "server_tool_use" },
      source: { provider: "anthropic", api: "anthropic-messages" },
    },
  ],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-5-5",
  usage: { ...emptyUsage(), input: 10, output: 5, totalTokens: 15, serverTools: { webSearch: 1 } },
  stopReason: "toolUse",
  responseId: "msg_1",
  timestamp: 1,
};

const messages: Message[] = [
  { role: "user", content: "hi", timestamp: 0 },
  {
    role: "user",
    content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
    timestamp: 0,
    synthetic: true,
  },
  assistant,
  {
    role: "toolResult",
    toolCallId: "toolu_1",
    toolName: "Read",
    content: [{ type: "text", text: "contents" }],
    isError: false,
    details: { lines: 1 },
    timestamp: 2,
  },
];

const errors = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.path} ${e.message}`);

describe("messages", () => {
  it("accepts every kind of message", () => {
    for (const m of messages) expect(errors(MessageSchema, m)).toEqual([]);
  });

  it("refuses a missing field, an unknown field and a value outside its set", () => {
    const { usage: _usage, ...noUsage } = assistant;
    expect(Value.Check(AssistantMessageSchema, noUsage)).toBe(false);
    expect(Value.Check(AssistantMessageSchema, { ...assistant, extra: 1 })).toBe(false);
    expect(Value.Check(AssistantMessageSchema, { ...assistant, stopReason: "end_turn" })).toBe(false);
    expect(Value.Check(AssistantMessageSchema, { ...assistant, api: "gemini" })).toBe(false);
    expect(Value.Check(MessageSchema, { role: "system", content: "x", timestamp: 0 })).toBe(false);
    // A tool result's content is text and images only.
    const toolCallInResult = { ...messages[3]!, content: [assistant.content[2]] };
    expect(Value.Check(MessageSchema, toolCallInResult)).toBe(false);
  });

  it("carries a failed call's error as one of the tagged AiError values", () => {
    const failed = {
      ...assistant,
      stopReason: "error",
      error: { type: "http", status: 429, reason: "rate_limit", message: "slow down", retryAfterMs: 2000 },
    };
    expect(errors(AssistantMessageSchema, failed)).toEqual([]);
    const unknownReason = { ...failed, error: { ...failed.error, reason: "teapot" } };
    expect(Value.Check(AssistantMessageSchema, unknownReason)).toBe(false);
    const kernelError = { ...failed, error: { type: "internal", message: "a bug" } };
    expect(Value.Check(AssistantMessageSchema, kernelError)).toBe(false);
  });
});

describe("stream events", () => {
  const events: AssistantMessageEvent[] = [
    { type: "start", partial: assistant },
    { type: "text_start", contentIndex: 1, partial: assistant },
    { type: "text_delta", contentIndex: 1, delta: "Read", partial: assistant },
    { type: "text_end", contentIndex: 1, content: "Reading.", partial: assistant },
    {
      type: "toolcall_end",
      contentIndex: 2,
      toolCall: { type: "toolCall", id: "t", name: "Read", arguments: {} },
      partial: assistant,
    },
    {
      type: "retry",
      attempt: 1,
      maxRetries: 3,
      delayMs: 500,
      error: { type: "network", reason: "reset", message: "reset" },
    },
    { type: "done", reason: "toolUse", message: assistant },
    {
      type: "error",
      reason: "aborted",
      error: { type: "aborted", message: "stopped" },
      message: { ...assistant, stopReason: "aborted" },
    },
  ];

  it("accepts each event", () => {
    for (const e of events) expect(errors(AssistantMessageEventSchema, e)).toEqual([]);
  });

  it("refuses an event without its partial message or with a reason of the other end", () => {
    const { partial: _p, ...bare } = events[2] as Extract<AssistantMessageEvent, { type: "text_delta" }>;
    expect(Value.Check(AssistantMessageEventSchema, bare)).toBe(false);
    expect(
      Value.Check(AssistantMessageEventSchema, { type: "done", reason: "error", message: assistant }),
    ).toBe(false);
    expect(
      Value.Check(AssistantMessageEventSchema, {
        type: "text_delta",
        contentIndex: 0.5,
        delta: "",
        partial: assistant,
      }),
    ).toBe(false);
  });
});

describe("models and contexts", () => {
  const model: Model = {
    id: "m",
    name: "M",
    api: "openai-completions",
    provider: "local",
    baseUrl: "http://127.0.0.1:11434/v1",
    reasoning: true,
    thinking: { mode: "effort", efforts: ["low", "high"], defaultOn: false, off: "effort-none" },
    input: ["text"],
    contextWindow: 128_000,
    maxOutput: 8_192,
    cost: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      tiers: [{ aboveInputTokens: 1, input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }],
    },
    compat: { maxTokensField: "max_tokens", thinkingSwitch: "enable_thinking" },
    serverTools: ["web_search"],
  };

  it("accepts a model description and refuses an unknown modality or effort", () => {
    expect(errors(ModelSchema, model)).toEqual([]);
    expect(Value.Check(ModelSchema, { ...model, input: ["audio"] })).toBe(false);
    expect(Value.Check(ModelSchema, { ...model, thinking: { ...model.thinking, efforts: ["turbo"] } })).toBe(
      false,
    );
  });

  it("accepts a context whose tools carry any JSON Schema", () => {
    const context: Context = {
      systemPrompt: "s",
      messages,
      tools: [{ name: "Read", description: "r", parameters: Type.Object({ path: Type.String() }) }],
      serverTools: [{ name: "web_fetch", maxUses: 2, allowedDomains: ["example.com"] }],
    };
    expect(errors(ContextSchema, JSON.parse(JSON.stringify(context)))).toEqual([]);
  });
});

describe("emptyUsage", () => {
  it("is a valid usage of zeros, a new object each time", () => {
    const a = emptyUsage();
    expect(Value.Check(UsageSchema, a)).toBe(true);
    a.input = 5;
    expect(emptyUsage().input).toBe(0);
  });
});
