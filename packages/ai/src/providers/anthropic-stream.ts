// Anthropic Messages stream events → sink calls: text (with citations), thinking and signatures,
// client tool calls, server-side blocks kept whole, usage (server tool calls and compaction
// iterations included) and how the message ended — also when the whole reply came in message_start.
import type Anthropic from "@anthropic-ai/sdk";
import type { ChunkSink } from "../builder.js";
import type { AiError, Citation, ServerToolContent } from "../types.js";

type Event = Anthropic.RawMessageStreamEvent;
type Json = Record<string, unknown>;

/** The SDK surfaces in-band `error` events as exceptions, but a proxy may pass them through as data. */
export interface InBandError {
  type: "error";
  error?: { type?: string; message?: string };
}

/**
 * What one message remembers across its events: the sink key of each open wire index, and the
 * block started last (some servers number a start one behind its deltas after a server tool
 * result, so a delta for an index with no open block belongs to it). Keys are unique within the
 * message, also across the responses of a paused turn.
 */
interface BlockState {
  keys: Map<number, string>;
  last: string | undefined;
  next: number;
}

const states = new WeakMap<ChunkSink, BlockState>();

function stateOf(sink: ChunkSink): BlockState {
  let state = states.get(sink);
  if (!state) {
    state = { keys: new Map(), last: undefined, next: 0 };
    states.set(sink, state);
  }
  return state;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The tool a server block belongs to: a call's name, or the result type's prefix. */
function serverToolName(block: Json): string {
  const type = str(block.type);
  if (type === "server_tool_use" || type === "mcp_tool_use") return str(block.name);
  return type.replace(/_tool_result$/, "");
}

/** Pages a web search or fetch result names, and its error code if it failed. */
function resultFacts(block: Json): Pick<ServerToolContent, "sources" | "error"> {
  const content = block.content as Json | Json[] | null | undefined;
  if (Array.isArray(content)) {
    const sources = content.flatMap((r) =>
      typeof r.url === "string"
        ? [{ url: r.url, ...(typeof r.title === "string" ? { title: r.title } : {}) }]
        : [],
    );
    return sources.length > 0 ? { sources } : {};
  }
  if (!content || typeof content !== "object") return {};
  if (typeof content.error_code === "string") return { error: content.error_code };
  if (typeof content.url === "string") {
    const doc = content.content as Json | undefined;
    return {
      sources: [{ url: content.url, ...(typeof doc?.title === "string" ? { title: doc.title } : {}) }],
    };
  }
  return {};
}

export function serverBlock(block: Json): Omit<ServerToolContent, "type" | "source"> {
  const input = block.input;
  return {
    name: serverToolName(block),
    id: str(block.id ?? block.tool_use_id),
    ...(input && typeof input === "object" && Object.keys(input).length > 0 ? { input: input as Json } : {}),
    ...resultFacts(block),
    raw: { ...block },
  };
}

export function citationOf(raw: Json): Citation {
  return {
    ...(typeof raw.url === "string" ? { url: raw.url } : {}),
    ...(typeof raw.title === "string" ? { title: raw.title } : {}),
    ...(typeof raw.cited_text === "string" ? { citedText: raw.cited_text } : {}),
    raw,
  };
}

function startBlock(key: string, block: Json, sink: ChunkSink, whole: boolean): void {
  switch (block.type) {
    case "text":
      if (block.text) sink.text(key, str(block.text));
      for (const c of Array.isArray(block.citations) ? (block.citations as Json[]) : [])
        sink.textCitation(key, citationOf(c));
      return;
    case "thinking":
      if (block.thinking) sink.thinking(key, str(block.thinking));
      if (block.signature) sink.thinkingSignature(key, str(block.signature));
      return;
    case "redacted_thinking":
      sink.thinkingSignature(key, str(block.data), { redacted: true });
      return;
    case "tool_use": {
      sink.toolCallStart(key, { id: str(block.id), name: str(block.name) });
      // Arguments normally stream as input_json_delta; a whole reply (and some proxies) has them here.
      const input = block.input;
      if (input && typeof input === "object" && (whole || Object.keys(input).length > 0))
        sink.toolCallArgs(key, JSON.stringify(input));
      return;
    }
    default:
      sink.serverTool(key, serverBlock(block));
  }
}

function delta(key: string, d: Json, sink: ChunkSink): void {
  switch (d.type) {
    case "text_delta":
      sink.text(key, str(d.text));
      return;
    case "thinking_delta":
      sink.thinking(key, str(d.thinking));
      return;
    case "signature_delta":
      sink.thinkingSignature(key, str(d.signature));
      return;
    case "citations_delta":
      if (d.citation && typeof d.citation === "object")
        sink.textCitation(key, citationOf(d.citation as Json));
      return;
    case "input_json_delta":
      // A client tool call's arguments, or a server tool call's input (the sink knows which).
      sink.toolCallArgs(key, str(d.partial_json));
      return;
    default:
      // A server block's own deltas (compaction_delta…): their text fields grow the block.
      for (const [field, value] of Object.entries(d))
        if (field !== "type" && typeof value === "string") sink.serverToolDelta(key, field, value);
  }
}

/** Usage fields of message_start / message_delta; compaction runs inside the request bill apart. */
function usage(u: Json | undefined, start: boolean, sink: ChunkSink): void {
  if (!u) return;
  const n = (v: unknown) => (typeof v === "number" ? v : undefined);
  const extra = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const it of Array.isArray(u.iterations) ? (u.iterations as Json[]) : []) {
    if (it.type !== "compaction") continue;
    extra.input += n(it.input_tokens) ?? 0;
    extra.output += n(it.output_tokens) ?? 0;
    extra.cacheRead += n(it.cache_read_input_tokens) ?? 0;
    extra.cacheWrite += n(it.cache_creation_input_tokens) ?? 0;
  }
  const input = n(u.input_tokens);
  const cacheRead = n(u.cache_read_input_tokens);
  const cacheWrite = n(u.cache_creation_input_tokens);
  const output = n(u.output_tokens);
  const details = u.output_tokens_details as Json | undefined;
  sink.usage({
    ...(input !== undefined || start ? { input: (input ?? 0) + extra.input } : {}),
    ...(output !== undefined ? { output: output + extra.output } : {}),
    ...(cacheRead !== undefined || start ? { cacheRead: (cacheRead ?? 0) + extra.cacheRead } : {}),
    ...(cacheWrite !== undefined || start ? { cacheWrite: (cacheWrite ?? 0) + extra.cacheWrite } : {}),
    ...(n(details?.thinking_tokens) !== undefined ? { reasoning: n(details?.thinking_tokens) } : {}),
  });
  const server = u.server_tool_use as Json | undefined;
  if (server)
    sink.serverToolUsage({
      webSearch: n(server.web_search_requests),
      webFetch: n(server.web_fetch_requests),
    });
}

/** How the message ended, from its stop reason (and the details a refusal carries). */
function stop(reason: string, details: Json | null | undefined, sink: ChunkSink): void {
  switch (reason) {
    case "max_tokens":
      sink.finish("length");
      return;
    case "tool_use":
      sink.finish("toolUse");
      return;
    case "pause_turn":
      sink.pause();
      return;
    case "refusal":
      sink.fail(refusal(details));
      return;
    case "model_context_window_exceeded":
      sink.fail({
        type: "context_overflow",
        message: "The conversation no longer fits the model's context window.",
      });
      return;
    default:
      // end_turn, stop_sequence, and stop reasons newer than this code: the message is complete.
      sink.finish("stop");
  }
}

function refusal(details: Json | null | undefined): AiError {
  const explanation = str(details?.explanation);
  const category = str(details?.category);
  const recommended = str(details?.recommended_model);
  return {
    type: "refusal",
    message: `The model declined to answer${category ? ` (${category})` : ""}${explanation ? `: ${explanation}` : "."}`,
    ...(category ? { category } : {}),
    ...(explanation ? { explanation } : {}),
    ...(recommended ? { recommendedModel: recommended } : {}),
  };
}

export function translateAnthropicEvent(
  chunk: Event | InBandError,
  sink: ChunkSink,
  inBand: (type: string | undefined, message: string) => AiError,
): void {
  const state = stateOf(sink);
  const e = chunk as unknown as Json;
  switch (chunk.type) {
    case "message_start": {
      const message = e.message as Json;
      state.keys.clear();
      state.last = undefined;
      sink.responseId(str(message.id));
      usage(message.usage as Json, true, sink);
      // A reply delivered whole in message_start: its blocks, then its stop reason.
      for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
        const key = `b${state.next++}`;
        startBlock(key, block, sink, true);
        sink.endBlock(key);
      }
      if (typeof message.stop_reason === "string")
        stop(message.stop_reason, message.stop_details as Json | undefined, sink);
      return;
    }
    case "content_block_start": {
      const key = `b${state.next++}`;
      state.keys.set(chunk.index, key);
      state.last = key;
      startBlock(key, e.content_block as Json, sink, false);
      return;
    }
    case "content_block_delta": {
      const key = state.keys.get(chunk.index) ?? state.last;
      if (key !== undefined) delta(key, e.delta as Json, sink);
      return;
    }
    case "content_block_stop": {
      const key = state.keys.get(chunk.index) ?? state.last;
      if (key === undefined) return;
      sink.endBlock(key);
      state.keys.delete(chunk.index);
      if (key === state.last) state.last = undefined;
      return;
    }
    case "message_delta": {
      usage(e.usage as Json, false, sink);
      const d = e.delta as Json;
      if (typeof d.stop_reason === "string") stop(d.stop_reason, d.stop_details as Json | undefined, sink);
      return;
    }
    case "message_stop":
      return;
    case "error": {
      const error = (chunk as InBandError).error;
      sink.fail(inBand(error?.type, error?.message ?? "Anthropic reported an error mid-stream."));
      return;
    }
  }
}
