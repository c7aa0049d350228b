// Anthropic Messages (POST /v1/messages): named SSE events message_start … message_stop,
// content blocks with text / thinking / signature / input_json deltas, and the error envelope.
import type { PlannedReply } from "../reply.js";
import { splitText, sseEvent } from "../sse.js";
import { CLAUDE_RULES, claudeRequestProblem, conversationPrefix } from "./claude-rules.js";
import { type Dialect, type ErrorSpec, pad } from "./dialect.js";

const STOP_REASON = {
  stop: "end_turn",
  length: "max_tokens",
  toolUse: "tool_use",
  pause: "pause_turn",
  refusal: "refusal",
} as const;

/** What the API adds to a refusal stop. */
const REFUSAL_DETAILS = {
  type: "refusal",
  category: "cyber",
  explanation: "keel mock server: a scripted refusal.",
  recommended_model: null,
};

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
  const searches = reply.serverTools.filter((t) => t.name === "web_search").length;
  const fetches = reply.serverTools.filter((t) => t.name === "web_fetch").length;
  return {
    input_tokens: reply.usage.input,
    cache_creation_input_tokens: reply.usage.cacheWrite,
    cache_read_input_tokens: reply.usage.cacheRead,
    output_tokens: reply.usage.output,
    ...(reply.thinking === undefined
      ? {}
      : { output_tokens_details: { thinking_tokens: reply.usage.reasoning } }),
    ...(reply.serverTools.length > 0
      ? { server_tool_use: { web_search_requests: searches, web_fetch_requests: fetches } }
      : {}),
  };
}

type Block =
  | { kind: "thinking"; text: string; signature: string | undefined }
  | { kind: "text"; text: string; citations: Record<string, unknown>[] }
  | { kind: "tool"; id: string; name: string; arguments: string }
  | { kind: "server_call"; id: string; name: string; input: string }
  | { kind: "server_result"; block: Record<string, unknown> };

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** A server tool as the API sends it: the call (input streamed as JSON), then its result block. */
function serverBlocks(reply: PlannedReply): Block[] {
  return reply.serverTools.flatMap((tool, i): Block[] => {
    const id = `srvtoolu_keel${pad(reply.index)}_${i}`;
    const input = JSON.stringify(tool.name === "web_search" ? { query: tool.query } : { url: tool.url });
    const call: Block = { kind: "server_call", id, name: tool.name, input };
    const error = tool.error ? { type: `${tool.name}_tool_result_error`, error_code: tool.error } : undefined;
    const content =
      error ??
      (tool.name === "web_search"
        ? tool.results.map((r) => ({
            type: "web_search_result",
            url: r.url,
            title: r.title,
            encrypted_content: encode(r.content ?? r.title),
            page_age: null,
          }))
        : {
            type: "web_fetch_result",
            url: tool.url,
            content: {
              type: "document",
              source: { type: "text", media_type: "text/plain", data: tool.content },
              ...(tool.title ? { title: tool.title } : {}),
              citations: { enabled: true },
            },
            retrieved_at: "2026-12-01T00:00:00Z",
          });
    return [
      call,
      { kind: "server_result", block: { type: `${tool.name}_tool_result`, tool_use_id: id, content } },
    ];
  });
}

/** Web search citations as the API gives them (the encrypted index is the mock's own). */
function citationBlocks(reply: PlannedReply): Record<string, unknown>[] {
  return reply.citations.map((c, i) => ({
    type: "web_search_result_location",
    url: c.url,
    title: c.title ?? c.url,
    encrypted_index: encode(`keel-index-${reply.index}-${i}`),
    cited_text: c.citedText,
  }));
}

/**
 * The reply's content blocks in order. On the Claude 5 family they take the shapes the API
 * sends: thinking text only when the request asks for a display that returns it, text written
 * before tool calls as a thinking block where the model does that, and every signature minted
 * and remembered (model and conversation) so later requests can be checked against it.
 */
function blocksOf(reply: PlannedReply): Block[] {
  const rules = CLAUDE_RULES[reply.model];
  const thinkingConfig = reply.body.thinking as { type?: string; display?: string } | undefined;
  const type = thinkingConfig?.type;
  const display = thinkingConfig?.display ?? rules?.defaultDisplay ?? "summarized";
  let minted = 0;
  const sign = (scripted: string | undefined): string | undefined => {
    if (!rules) return scripted;
    const signature = scripted ?? `sig_${reply.model}_${pad(reply.index)}_${minted++}`;
    const messages = Array.isArray(reply.body.messages) ? reply.body.messages.length : 0;
    reply.ledger?.set(signature, { model: reply.model, prefix: conversationPrefix(reply.body, messages) });
    return signature;
  };
  const blocks: Block[] = [];
  const reasoningShown = display === "summarized";
  // Server tools run before the text that reports on them.
  blocks.push(...serverBlocks(reply));
  if (reply.thinking !== undefined && !(rules && type === "between_tools")) {
    blocks.push({
      kind: "thinking",
      text: !rules || reasoningShown ? reply.thinking : "",
      signature: sign(reply.thinkingSignature),
    });
  }
  if (reply.text !== undefined) {
    if (rules?.notesInThinking && reply.toolCalls.length > 0) {
      const notesShown = reasoningShown || display === "updates" || type === "between_tools";
      blocks.push({ kind: "thinking", text: notesShown ? reply.text : "", signature: sign(undefined) });
    } else {
      blocks.push({ kind: "text", text: reply.text, citations: citationBlocks(reply) });
    }
  }
  reply.toolCalls.forEach((call, i) => {
    blocks.push({ kind: "tool", id: toolId(reply, i), name: call.name, arguments: call.arguments });
  });
  return blocks;
}

/** The finished content blocks of the JSON reply. */
function contentBlocks(blocks: readonly Block[]): Record<string, unknown>[] {
  return blocks.map((block) => {
    if (block.kind === "thinking")
      return { type: "thinking", thinking: block.text, signature: block.signature ?? "" };
    if (block.kind === "text")
      return {
        type: "text",
        text: block.text,
        ...(block.citations.length > 0 ? { citations: block.citations } : {}),
      };
    if (block.kind === "server_call")
      return { type: "server_tool_use", id: block.id, name: block.name, input: JSON.parse(block.input) };
    if (block.kind === "server_result") return block.block;
    let input: unknown = {};
    try {
      input = JSON.parse(block.arguments);
    } catch {
      // Deliberately invalid arguments only exist in streams; the JSON form must stay an object.
    }
    return { type: "tool_use", id: block.id, name: block.name, input };
  });
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
  blocksOf(reply).forEach((block, index) => {
    const frame = (start: unknown, deltas: unknown[]) => {
      frames.push(
        sseEvent("content_block_start", { type: "content_block_start", index, content_block: start }),
      );
      for (const delta of deltas) {
        frames.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta }));
      }
      frames.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
    };
    if (block.kind === "thinking") {
      const deltas: unknown[] = splitText(block.text, chunkSize).map((thinking) => ({
        type: "thinking_delta",
        thinking,
      }));
      if (block.signature !== undefined) deltas.push({ type: "signature_delta", signature: block.signature });
      frame({ type: "thinking", thinking: "", signature: "" }, deltas);
    } else if (block.kind === "text") {
      frame({ type: "text", text: "", ...(block.citations.length > 0 ? { citations: [] } : {}) }, [
        ...block.citations.map((citation) => ({ type: "citations_delta", citation })),
        ...splitText(block.text, chunkSize).map((text) => ({ type: "text_delta", text })),
      ]);
    } else if (block.kind === "server_call") {
      frame(
        { type: "server_tool_use", id: block.id, name: block.name, input: {} },
        splitText(block.input, chunkSize).map((partial_json) => ({ type: "input_json_delta", partial_json })),
      );
    } else if (block.kind === "server_result") {
      frame(block.block, []);
    } else {
      frame(
        { type: "tool_use", id: block.id, name: block.name, input: {} },
        splitText(block.arguments, chunkSize).map((partial_json) => ({
          type: "input_json_delta",
          partial_json,
        })),
      );
    }
  });
  frames.push(
    sseEvent("message_delta", {
      type: "message_delta",
      delta: {
        stop_reason: STOP_REASON[reply.stopReason],
        stop_sequence: null,
        ...(reply.stopReason === "refusal" ? { stop_details: REFUSAL_DETAILS } : {}),
      },
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
    content: contentBlocks(blocksOf(reply)),
    stop_reason: STOP_REASON[reply.stopReason],
    stop_sequence: null,
    usage: usage(reply),
  }),
  errorBody,
  check: (body, ledger) => {
    const model = typeof body.model === "string" ? body.model : "";
    const rules = CLAUDE_RULES[model];
    return rules ? claudeRequestProblem(model, rules, body, ledger) : undefined;
  },
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
