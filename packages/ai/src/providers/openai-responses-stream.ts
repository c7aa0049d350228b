// OpenAI Responses stream events → sink calls. Blocks are keyed by output index (and content
// index), not by item id: proxies rotate item ids between the events of one item. Each item's
// final form (output_item.done, or the completed response's output) is authoritative, so text a
// server sends only there is kept; items Keel does not run itself are kept whole as server blocks.
import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import type { ChunkSink } from "../builder.js";
import type { Citation, ServerToolContent, TextContent } from "../types.js";
import { inBandError } from "./openai-shared.js";

type Json = Record<string, unknown>;

/**
 * A Responses tool call is named twice: `call_id` pairs it with its output, the item id
 * (`fc_…`) pairs it with the reasoning that produced it. Keel's tool call id keeps both.
 */
export function joinToolCallId(callId: string, itemId: string | undefined): string {
  return itemId ? `${callId}|${itemId}` : callId;
}

export function splitToolCallId(id: string): { callId: string; itemId?: string } {
  const bar = id.indexOf("|");
  if (bar === -1) return { callId: id };
  return { callId: id.slice(0, bar), itemId: id.slice(bar + 1) || undefined };
}

/** What one request remembers across its events. */
export interface ResponsesState {
  /** Output indexes, and item ids, whose final item was translated. */
  done: Set<number>;
  doneIds: Set<string>;
  /** Keys of reasoning summaries and call arguments that streamed. */
  streamed: Set<string>;
  /** Text that streamed per text part, so its final form can complete it. */
  texts: Map<string, string>;
  sawToolCall: boolean;
  webSearches: number;
}

export function responsesState(): ResponsesState {
  return {
    done: new Set(),
    doneIds: new Set(),
    streamed: new Set(),
    texts: new Map(),
    sawToolCall: false,
    webSearches: 0,
  };
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Incomplete reasons that mean the output cap was reached (OpenAI's, and xAI's spelling). */
const LENGTH_REASONS = new Set(["max_output_tokens", "REASON_MAX_LEN", "max_tokens", "length"]);

function usageOf(usage: ResponseUsage | null | undefined, sink: ChunkSink): void {
  if (!usage) return;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.input_tokens_details?.cache_write_tokens ?? 0;
  sink.usage({
    input: Math.max(0, usage.input_tokens - cached - cacheWrite),
    output: usage.output_tokens,
    cacheRead: cached,
    cacheWrite,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
  });
}

/** A part's url citations; the words cited are the span of the text each one annotates. */
function citationsOf(annotations: unknown, text: string): Citation[] {
  if (!Array.isArray(annotations)) return [];
  return (annotations as Json[]).flatMap((a) => {
    if (a.type !== "url_citation" || typeof a.url !== "string") return [];
    const { start_index: start, end_index: end } = a;
    const cited =
      typeof start === "number" && typeof end === "number" && start >= 0 && end > start && end <= text.length
        ? text.slice(start, end)
        : undefined;
    return [
      {
        url: a.url,
        ...(typeof a.title === "string" ? { title: a.title } : {}),
        ...(cited ? { citedText: cited } : {}),
        raw: a,
      },
    ];
  });
}

function phaseOf(item: Json): TextContent["phase"] | undefined {
  return item.phase === "commentary" || item.phase === "final_answer" ? item.phase : undefined;
}

/** Keel's name for a server item: its type without `_call` (web_search_call → web_search). */
function serverItem(item: Json): Omit<ServerToolContent, "type" | "source"> {
  const action = item.action as Json | undefined;
  const sources = Array.isArray(action?.sources)
    ? (action.sources as Json[]).flatMap((s) => (typeof s.url === "string" ? [{ url: s.url }] : []))
    : [];
  const input = action && typeof action === "object" ? { ...action } : undefined;
  if (input) delete input.sources;
  return {
    name: str(item.type).replace(/_call$/, ""),
    id: str(item.id),
    ...(input && Object.keys(input).length > 0 ? { input } : {}),
    ...(sources.length > 0 ? { sources } : {}),
    ...(typeof item.error === "string" ? { error: item.error } : {}),
    raw: { ...item },
  };
}

/** An item in its final form: text not streamed is added, blocks end, metadata lands. */
function finishItem(item: Json, at: number, state: ResponsesState, sink: ChunkSink): void {
  if (state.done.has(at) || (typeof item.id === "string" && state.doneIds.has(item.id))) return;
  state.done.add(at);
  if (typeof item.id === "string") state.doneIds.add(item.id);
  const key = String(at);
  switch (item.type) {
    case "reasoning": {
      if (!state.streamed.has(key)) {
        const parts = [...((item.summary as Json[]) ?? []), ...((item.content as Json[]) ?? [])]
          .map((p) => str(p.text))
          .filter((t) => t !== "");
        if (parts.length > 0) sink.thinking(key, parts.join("\n\n"));
      }
      // The whole item (with encrypted_content) is what the next request sends back.
      sink.thinkingSignature(key, JSON.stringify(item));
      sink.endBlock(key);
      return;
    }
    case "message": {
      const phase = phaseOf(item);
      ((item.content as Json[]) ?? []).forEach((part, i) => {
        const partKey = `${at}:${i}`;
        const text = str(part.type === "refusal" ? part.refusal : part.text);
        // The final text completes what streamed (all of it, when nothing did); a final text that
        // does not continue the streamed one leaves what was shown as it is.
        const streamed = state.texts.get(partKey) ?? "";
        if (text.length > streamed.length && text.startsWith(streamed))
          sink.text(partKey, text.slice(streamed.length));
        for (const citation of citationsOf(part.annotations, text || streamed))
          sink.textCitation(partKey, citation);
        sink.textMeta(partKey, {
          ...(phase ? { phase } : {}),
          ...(item.id ? { signature: str(item.id) } : {}),
        });
        sink.endBlock(partKey);
      });
      return;
    }
    case "function_call": {
      state.sawToolCall = true;
      const id = joinToolCallId(str(item.call_id), item.id ? str(item.id) : undefined);
      sink.toolCallStart(key, { id, name: str(item.name) });
      if (!state.streamed.has(key) && item.arguments) sink.toolCallArgs(key, str(item.arguments));
      sink.endBlock(key);
      return;
    }
    default: {
      const block = serverItem(item);
      if (item.type === "web_search_call" && (item.action as Json | undefined)?.type === "search") {
        state.webSearches++;
        sink.serverToolUsage({ webSearch: state.webSearches });
      }
      sink.serverTool(key, block);
      sink.endBlock(key);
    }
  }
}

export function translateResponsesEvent(
  event: ResponseStreamEvent,
  state: ResponsesState,
  sink: ChunkSink,
): void {
  const e = event as unknown as Json;
  const at = typeof e.output_index === "number" ? e.output_index : undefined;
  switch (event.type) {
    case "response.created":
      sink.responseId(event.response.id);
      return;
    case "response.output_item.added": {
      const item = event.item as unknown as Json;
      if (item.type === "function_call" && at !== undefined) {
        state.sawToolCall = true;
        const key = String(at);
        sink.toolCallStart(key, {
          id: joinToolCallId(str(item.call_id), item.id ? str(item.id) : undefined),
          name: str(item.name),
        });
        if (item.arguments) {
          state.streamed.add(key);
          sink.toolCallArgs(key, str(item.arguments));
        }
      }
      return;
    }
    case "response.output_text.delta":
    case "response.refusal.delta": {
      const key = `${at}:${event.content_index}`;
      state.texts.set(key, (state.texts.get(key) ?? "") + event.delta);
      sink.text(key, event.delta);
      return;
    }
    case "response.reasoning_summary_part.added":
      // Summary parts are separate paragraphs of one thinking block.
      if (event.summary_index > 0 && state.streamed.has(String(at))) sink.thinking(String(at), "\n\n");
      return;
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      if (at === undefined || event.delta === "") return;
      state.streamed.add(String(at));
      sink.thinking(String(at), event.delta);
      return;
    case "response.function_call_arguments.delta":
      state.streamed.add(String(at));
      sink.toolCallArgs(String(at), event.delta);
      return;
    case "response.output_item.done":
      if (at !== undefined) finishItem(event.item as unknown as Json, at, state, sink);
      return;
    case "response.completed": {
      // Items a server put only in the completed response are as final as any.
      const output = event.response.output ?? [];
      output.forEach((item, i) => {
        finishItem(item as unknown as Json, i, state, sink);
      });
      usageOf(event.response.usage, sink);
      const toolUse = state.sawToolCall || output.some((o) => o.type === "function_call");
      sink.finish(toolUse ? "toolUse" : "stop");
      return;
    }
    case "response.incomplete": {
      usageOf(event.response.usage, sink);
      const reason = str(event.response.incomplete_details?.reason);
      if (LENGTH_REASONS.has(reason)) sink.finish("length");
      else if (reason === "content_filter")
        sink.fail({ type: "refusal", message: "The provider stopped the response with its content filter." });
      else
        sink.fail({
          type: "protocol",
          message: `The response is incomplete: ${reason || "no reason given"}.`,
        });
      return;
    }
    case "response.failed": {
      usageOf(event.response.usage, sink);
      const error = event.response.error;
      sink.fail(inBandError(error?.code, error?.message ?? "the response failed without a reason"));
      return;
    }
    case "error":
      sink.fail(inBandError(event.code, event.message));
      return;
    default:
      return;
  }
}
