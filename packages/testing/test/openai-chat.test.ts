// The real openai SDK against the Chat Completions dialect, over both transports.
import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplyTurn } from "../src/index.js";
import { openTransport, rejection, TRANSPORTS, type Transport } from "./transports.js";

const PARAMS = {
  model: "gpt-test",
  messages: [{ role: "user" as const, content: "hello" }],
};

const FULL: ReplyTurn = {
  thinking: "I should read the file and list the directory.",
  text: "Looking.",
  toolCalls: [
    { id: "call_a", name: "read", arguments: { path: "/repo/src/index.ts" } },
    { name: "ls", arguments: { dir: "/repo", recursive: true } },
  ],
  usage: { input: 100, output: 50, cacheRead: 30, cacheWrite: 20, reasoning: 10 },
  chunkSize: 5,
};

async function collect(t: Transport, includeUsage = true): Promise<ChatCompletionChunk[]> {
  const stream = await t.openai.chat.completions.create({
    ...PARAMS,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe.each(TRANSPORTS)("OpenAI Chat Completions over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  it("streams reasoning_content, text and two tool calls with arguments split across chunks", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const chunks = await collect(t);
    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
    const reasoning = deltas
      .map((d) => (d as { reasoning_content?: string }).reasoning_content ?? "")
      .join("");
    expect(reasoning).toBe(FULL.thinking);
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Looking.");
    const calls = new Map<number, { id?: string; name?: string; args: string; pieces: number }>();
    for (const call of deltas.flatMap((d) => d.tool_calls ?? [])) {
      const entry = calls.get(call.index) ?? { args: "", pieces: 0 };
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name = call.function.name;
      entry.args += call.function?.arguments ?? "";
      entry.pieces++;
      calls.set(call.index, entry);
    }
    expect([...calls.values()].map(({ id, name, args }) => ({ id, name, args: JSON.parse(args) }))).toEqual([
      { id: "call_a", name: "read", args: { path: "/repo/src/index.ts" } },
      { id: "call_keel0000_1", name: "ls", args: { dir: "/repo", recursive: true } },
    ]);
    expect(calls.get(1)?.pieces).toBeGreaterThan(3);
    const finish = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean);
    expect(finish).toEqual(["tool_calls"]);
  });

  it("ends with a usage chunk (empty choices) when include_usage is set, and not otherwise", async () => {
    t = await openTransport(kind, { turns: [FULL, FULL] });
    const withUsage = await collect(t, true);
    expect(withUsage.at(-1)?.choices).toEqual([]);
    expect(withUsage.at(-1)?.usage).toEqual({
      prompt_tokens: 150,
      completion_tokens: 50,
      total_tokens: 200,
      prompt_tokens_details: { cached_tokens: 30, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 10,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    const without = await collect(t, false);
    expect(without.every((c) => c.usage === undefined)).toBe(true);
    expect(without.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("maps stop reasons to stop and length, and the SDK helper assembles the message", async () => {
    t = await openTransport(kind, { turns: [{ text: "all done" }, { text: "trunc", stopReason: "length" }] });
    const done = await t.openai.chat.completions.stream(PARAMS).finalChatCompletion();
    expect(done.choices[0]?.finish_reason).toBe("stop");
    expect(done.choices[0]?.message.content).toBe("all done");
    const cut = await t.openai.chat.completions.stream(PARAMS).finalChatCompletion();
    expect(cut.choices[0]?.finish_reason).toBe("length");
  });

  it("answers a non-streaming request with a chat.completion", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const completion = await t.openai.chat.completions.create(PARAMS);
    expect(completion.object).toBe("chat.completion");
    expect(
      completion.choices[0]?.message.tool_calls?.map((c) => c.type === "function" && c.function.name),
    ).toEqual(["read", "ls"]);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(30);
  });

  it("returns a scripted 429 with retry-after as the SDK's RateLimitError", async () => {
    t = await openTransport(kind, {
      turns: [{ kind: "error", status: 429, headers: { "retry-after": "3" }, message: "Rate limit reached" }],
    });
    const error = (await rejection(() => collect(t))) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.headers?.get("retry-after")).toBe("3");
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.message).toContain("Rate limit reached");
  });

  it("answers a context overflow with code context_length_exceeded", async () => {
    t = await openTransport(kind, {
      turns: [{ kind: "context_overflow", maxTokens: 8192, promptTokens: 9000 }],
    });
    const error = (await rejection(() => collect(t))) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe("context_length_exceeded");
    expect(error.type).toBe("invalid_request_error");
    expect(error.message).toContain("maximum context length is 8192 tokens");
  });

  it("rejects on a mid-stream disconnect", async () => {
    t = await openTransport(kind, {
      turns: [{ text: "never finished", chunkSize: 2, disconnectAfterEvents: 3 }],
    });
    await expect(collect(t)).rejects.toThrow("terminated");
  });

  it("rejects on a malformed data line", async () => {
    t = await openTransport(kind, { turns: [{ text: "hello", malformedAfterEvents: 2 }] });
    await expect(collect(t)).rejects.toThrow(SyntaxError);
  });

  it("raises an in-stream error chunk as an APIError", async () => {
    t = await openTransport(kind, {
      turns: [{ text: "hello", streamErrorAfterEvents: 2, streamErrorMessage: "boom" }],
    });
    const error = await rejection(() => collect(t));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("boom");
  });

  it("records tools and the bearer key of each request", async () => {
    t = await openTransport(kind, { turns: [{ text: "ok" }] });
    const tools = [
      {
        type: "function" as const,
        function: { name: "read", parameters: { type: "object", properties: {} } },
      },
    ];
    await t.openai.chat.completions.create({ ...PARAMS, tools });
    expect(t.requests[0]).toMatchObject({ api: "openai-completions", path: "/v1/chat/completions" });
    expect(t.requests[0]?.headers.authorization).toBe("Bearer test-key");
    expect(t.requests[0]?.body.tools).toEqual(tools);
  });
});
