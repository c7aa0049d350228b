// Anthropic Messages (POST /v1/messages): named SSE events message_start … message_stop,
// content blocks with text / thinking / signature / input_json deltas, and the error envelope.
import type { PlannedReply } from "../reply.js";
import { splitText, sseEvent } from "../sse.js";
import { type Dialect, type ErrorSpec, pad } from "./dialect.js";

const STOP_REASON = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use" } as const;

const ERROR_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

function errorType(status: number): string {
  return ERROR_TYPE[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

function messageId(reply: PlannedReply): string {
  return `msg_keel${pad(reply.index)}`;
}

function toolId(reply: PlannedReply, i: number): string {
  return reply.toolCalls[i]?.id ?? `toolu_keel${pad(reply.index)}_${i}`;
}

function usage(reply: PlannedReply) {
  return {
    input_tokens: reply.usage.input,
    cache_creation_input_tokens: reply.usage.cacheWrite,
    cache_read_input_tokens: reply.usage.cacheRead,
    output_tokens: reply.usage.output,
    ...(reply.thinking === undefined
      ? {}
      : { output_tokens_details: { thinking_tokens: reply.usage.reasoning } }),
  };
}

/** The finished content blocks, as both the JSON reply and the stream's blocks describe them. */
function contentBlocks(reply: PlannedReply): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (reply.thinking !== undefined) {
    blocks.push({ type: "thinking", thinking: reply.thinking, signature: reply.thinkingSignature ?? "" });
  }
  if (reply.text !== undefined) blocks.push({ type: "text", text: reply.text });
  reply.toolCalls.forEach((call, i) => {
    let input: unknown = {};
    try {
      input = JSON.parse(call.arguments);
    } catch {
      // Deliberately invalid arguments only exist in streams; the JSON form must stay an object.
    }
    blocks.push({ type: "tool_use", id: toolId(reply, i), name: call.name, input });
  });
  return blocks;
}

function stream(reply: PlannedReply): string[] {
  const frames: string[] = [];
  const { chunkSize } = reply;
  frames.push(
    sseEvent("message_start", {
      type: "message_start",
      message: {
        id: messageId(reply),
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: reply.usage.input,
          cache_creation_input_tokens: reply.usage.cacheWrite,
          cache_read_input_tokens: reply.usage.cacheRead,
          output_tokens: Math.min(1, reply.usage.output),
        },
      },
    }),
  );
  frames.push(sseEvent("ping", { type: "ping" }));
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    frames.push(
      sseEvent("content_block_start", { type: "content_block_start", index, content_block: start }),
    );
    for (const delta of deltas) {
      frames.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    frames.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
    index++;
  };
  if (reply.thinking !== undefined) {
    const deltas: unknown[] = splitText(reply.thinking, chunkSize).map((thinking) => ({
      type: "thinking_delta",
      thinking,
    }));
    if (reply.thinkingSignature !== undefined) {
      deltas.push({ type: "signature_delta", signature: reply.thinkingSignature });
    }
    block({ type: "thinking", thinking: "", signature: "" }, deltas);
  }
  if (reply.text !== undefined) {
    block(
      { type: "text", text: "" },
      splitText(reply.text, chunkSize).map((text) => ({ type: "text_delta", text })),
    );
  }
  reply.toolCalls.forEach((call, i) => {
    block(
      { type: "tool_use", id: toolId(reply, i), name: call.name, input: {} },
      splitText(call.arguments, chunkSize).map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      })),
    );
  });
  frames.push(
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: STOP_REASON[reply.stopReason], stop_sequence: null },
      // Cumulative whole-message totals, as the API sends them (the SDK overwrites its snapshot).
      usage: usage(reply),
    }),
  );
  frames.push(sseEvent("message_stop", { type: "message_stop" }));
  return frames;
}

function errorBody(error: ErrorSpec): unknown {
  return { type: "error", error: { type: error.type ?? errorType(error.status), message: error.message } };
}

export const anthropic: Dialect = {
  api: "anthropic-messages",
  path: "/v1/messages",
  requestIdHeader: "request-id",
  stream,
  json: (reply) => ({
    id: messageId(reply),
    type: "message",
    role: "assistant",
    model: reply.model,
    content: contentBlocks(reply),
    stop_reason: STOP_REASON[reply.stopReason],
    stop_sequence: null,
    usage: usage(reply),
  }),
  errorBody,
  overflow: (turn) => {
    const max = turn.maxTokens ?? 200_000;
    const prompt = turn.promptTokens ?? max + 1000;
    return {
      status: 400,
      body: errorBody({
        status: 400,
        message: `prompt is too long: ${prompt} tokens > ${max} maximum`,
        type: undefined,
        code: undefined,
      }),
    };
  },
  streamError: (_reply, message) =>
    sseEvent("error", { type: "error", error: { type: "overloaded_error", message } }),
  malformed: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{\n\n',
  isTextDelta: (frame) =>
    frame.startsWith("event: content_block_delta\n") && frame.includes('"type":"text_delta"'),
};
