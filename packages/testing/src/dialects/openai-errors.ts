// OpenAI's error envelope `{"error":{message,type,param,code}}`, shared by Chat Completions
// and Responses, with the types and codes the real API uses per status.
import type { ContextOverflowTurn } from "../scenario.js";
import type { ErrorSpec } from "./dialect.js";

function defaults(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status >= 500) return { type: "server_error", code: null };
  return { type: "invalid_request_error", code: null };
}

export function openaiErrorBody(error: ErrorSpec): unknown {
  const fallback = defaults(error.status);
  return {
    error: {
      message: error.message,
      type: error.type ?? fallback.type,
      param: null,
      code: error.code ?? fallback.code,
    },
  };
}

export function openaiOverflow(turn: ContextOverflowTurn, param: "messages" | "input") {
  const max = turn.maxTokens ?? 128_000;
  const prompt = turn.promptTokens ?? max + 1000;
  const message =
    param === "messages"
      ? `This model's maximum context length is ${max} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`
      : `Your input exceeds the context window of this model (${prompt} tokens > ${max} maximum). Please adjust your input and try again.`;
  return {
    status: 400,
    body: { error: { message, type: "invalid_request_error", param, code: "context_length_exceeded" } },
  };
}
