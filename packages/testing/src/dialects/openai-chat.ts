// OpenAI Chat Completions (POST /v1/chat/completions): unnamed `data:` chunks with
// choices[0].delta, an optional trailing usage chunk, then `data: [DONE]`.
// Thinking streams as `reasoning_content`, the field DeepSeek, Qwen and vLLM use.
import type { PlannedReply } from "../reply.js";
import { SSE_DONE, splitText, sseData } from "../sse.js";
import { type Dialect, type ErrorSpec, FIXED_UNIX_SECONDS, pad } from "./dialect.js";
import { openaiErrorBody, openaiOverflow } from "./openai-errors.js";

const FINISH_REASON = {
  stop: "stop",
  length: "length",
  toolUse: "tool_calls",
  // Chat Completions has no paused turns; a refusal is the content filter's finish.
  pause: "stop",
  refusal: "content_filter",
} as const;

function completionId(reply: PlannedReply): string {
  return `chatcmpl-keel${pad(reply.index)}`;
}

function toolId(reply: PlannedReply, i: number): string {
  return reply.toolCalls[i]?.id ?? `call_keel${pad(reply.index)}_${i}`;
}

function usage(reply: PlannedReply) {
  const prompt = reply.usage.input + reply.usage.cacheRead + reply.usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: reply.usage.output,
    total_tokens: prompt + reply.usage.output,
    prompt_tokens_details: { cached_tokens: reply.usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reply.usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function includesUsage(reply: PlannedReply): boolean {
  const options = reply.body.stream_options;
  return (
    typeof options === "object" &&
    options !== null &&
    "include_usage" in options &&
    options.include_usage === true
  );
}

function stream(reply: PlannedReply): string[] {
  const includeUsage = includesUsage(reply);
  const base = {
    id: completionId(reply),
    object: "chat.completion.chunk",
    created: FIXED_UNIX_SECONDS,
    model: reply.model,
    system_fingerprint: "fp_keel",
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseData({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const frames = [chunk({ role: "assistant", content: reply.text === undefined ? null : "", refusal: null })];
  for (const piece of splitText(reply.thinking ?? "", reply.chunkSize)) {
    frames.push(chunk({ reasoning_content: piece }));
  }
  for (const piece of splitText(reply.text ?? "", reply.chunkSize)) frames.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, i) => {
    frames.push(
      chunk({
        tool_calls: [
          { index: i, id: toolId(reply, i), type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
    );
    for (const piece of splitText(call.arguments, reply.chunkSize)) {
      frames.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
  });
  frames.push(chunk({}, FINISH_REASON[reply.stopReason]));
  if (includeUsage) frames.push(sseData({ ...base, choices: [], usage: usage(reply) }));
  frames.push(SSE_DONE);
  return frames;
}

function json(reply: PlannedReply): unknown {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: reply.text ?? null,
    refusal: null,
  };
  if (reply.thinking !== undefined) message.reasoning_content = reply.thinking;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call, i) => ({
      id: toolId(reply, i),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: completionId(reply),
    object: "chat.completion",
    created: FIXED_UNIX_SECONDS,
    model: reply.model,
    system_fingerprint: "fp_keel",
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASON[reply.stopReason] }],
    usage: usage(reply),
  };
}

export const openaiChat: Dialect = {
  api: "openai-completions",
  path: "/v1/chat/completions",
  requestIdHeader: "x-request-id",
  stream,
  json,
  errorBody: (error: ErrorSpec) => openaiErrorBody(error),
  overflow: (turn) => openaiOverflow(turn, "messages"),
  streamError: (_reply, message) =>
    sseData(openaiErrorBody({ status: 500, message, type: "server_error", code: undefined })),
  malformed: () => 'data: {"id":"chatcmpl-keel","object":"chat.completion.chunk","choices":[{\n\n',
  // The first chunk's delta starts with the role, so only the text pieces start with content.
  isTextDelta: (frame) => frame.includes('"delta":{"content":'),
};
