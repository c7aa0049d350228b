// The real openai SDK against the Responses dialect, over both transports.
import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplyTurn } from "../src/index.js";
import { openTransport, rejection, TRANSPORTS, type Transport } from "./transports.js";

const PARAMS = { model: "gpt-5-test", input: "hello" };

const FULL: ReplyTurn = {
  thinking: "Two tools are needed here, in parallel.",
  thinkingSignature: "gAAAA-encrypted",
  text: "On it.",
  toolCalls: [
    { id: "call_a", name: "read", arguments: { path: "/repo/README.md" } },
    { name: "grep", arguments: { pattern: "TODO", dir: "/repo/src" } },
  ],
  usage: { input: 100, output: 50, cacheRead: 30, cacheWrite: 20, reasoning: 10 },
  chunkSize: 4,
};

describe.each(TRANSPORTS)("OpenAI Responses over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  it("streams a reasoning summary with encrypted content, text and two function calls", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const stream = t.openai.responses.stream(PARAMS);
    const events: ResponseStreamEvent[] = [];
    stream.on("event", (event) => events.push(event));
    const response = await stream.finalResponse();

    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("On it.");
    const [reasoning, message, first, second] = response.output;
    expect(reasoning).toMatchObject({
      type: "reasoning",
      encrypted_content: "gAAAA-encrypted",
      summary: [{ type: "summary_text", text: FULL.thinking }],
    });
    expect(message).toMatchObject({ type: "message", role: "assistant" });
    expect(first).toMatchObject({ type: "function_call", call_id: "call_a", name: "read" });
    expect(second).toMatchObject({ type: "function_call", call_id: "call_keel0000_1", name: "grep" });
    expect(JSON.parse(first?.type === "function_call" ? first.arguments : "")).toEqual({
      path: "/repo/README.md",
    });
    expect(response.usage).toEqual({
      input_tokens: 150,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 200,
    });

    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(["response.created", "response.in_progress"]);
    expect(events.at(-1)?.type).toBe("response.completed");
    const argDeltas = events.filter(
      (e) => e.type === "response.function_call_arguments.delta" && e.output_index === 3,
    );
    expect(argDeltas.length).toBeGreaterThan(3);
    expect(events.filter((e) => e.type === "response.reasoning_summary_text.delta").length).toBeGreaterThan(
      3,
    );
  });

  it("ends a length stop with response.incomplete and max_output_tokens", async () => {
    t = await openTransport(kind, { turns: [{ text: "trunc", stopReason: "length" }] });
    const events: ResponseStreamEvent[] = [];
    const stream = t.openai.responses.stream(PARAMS);
    stream.on("event", (event) => events.push(event));
    const response = await stream.finalResponse();
    expect(events.at(-1)?.type).toBe("response.incomplete");
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
  });

  it("answers a non-streaming request with the full response object", async () => {
    t = await openTransport(kind, { turns: [FULL] });
    const response = await t.openai.responses.create(PARAMS);
    expect(response.id).toBe("resp_keel0000");
    expect(response.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    expect(response.output_text).toBe("On it.");
  });

  it("returns a scripted 503 with its headers as an InternalServerError", async () => {
    t = await openTransport(kind, {
      turns: [{ kind: "error", status: 503, headers: { "retry-after-ms": "250" }, message: "overloaded" }],
    });
    const error = (await rejection(() =>
      t.openai.responses.create({ ...PARAMS, stream: true }),
    )) as InstanceType<typeof OpenAI.InternalServerError>;
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(503);
    expect(error.headers?.get("retry-after-ms")).toBe("250");
    expect(error.type).toBe("server_error");
  });

  it("answers a context overflow with code context_length_exceeded", async () => {
    t = await openTransport(kind, { turns: [{ kind: "context_overflow" }] });
    const error = (await rejection(() => t.openai.responses.create(PARAMS))) as InstanceType<
      typeof OpenAI.BadRequestError
    >;
    expect(error.status).toBe(400);
    expect(error.code).toBe("context_length_exceeded");
    expect(error.param).toBe("input");
  });

  it("rejects on a mid-stream disconnect and on a malformed line", async () => {
    t = await openTransport(kind, {
      turns: [
        { text: "cut off here", disconnectAfterEvents: 4 },
        { text: "garbled", malformedAfterEvents: 4 },
      ],
    });
    const cut = await rejection(() => t.openai.responses.stream(PARAMS).finalResponse());
    // Both transports fail the body the way undici does when the peer hangs up.
    expect((cut as Error).cause).toEqual(new TypeError("terminated"));
    const garbled = await rejection(() => t.openai.responses.stream(PARAMS).finalResponse());
    expect((garbled as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it("ends a scripted in-stream failure with response.failed carrying the error", async () => {
    t = await openTransport(kind, {
      turns: [{ text: "hello", streamErrorAfterEvents: 3, streamErrorMessage: "boom" }],
    });
    const stream = await t.openai.responses.create({ ...PARAMS, stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe("response.failed");
    expect(last?.sequence_number).toBe(3);
    expect(last?.type === "response.failed" && last.response.error).toEqual({
      code: "server_error",
      message: "boom",
    });
  });

  it("records the request with its instructions and tools", async () => {
    t = await openTransport(kind, { turns: [{ text: "ok" }] });
    await t.openai.responses.create({ ...PARAMS, instructions: "be brief", prompt_cache_key: "session-1" });
    expect(t.requests[0]).toMatchObject({ api: "openai-responses", path: "/v1/responses", index: 0 });
    expect(t.requests[0]?.body).toMatchObject({ instructions: "be brief", prompt_cache_key: "session-1" });
  });
});
