// What a correct client makes of one recorded response, read straight from its payloads and
// independent of Keel's adapters: the blocks in order (text, thinking with its exact signature,
// tool calls, server-side blocks), the usage, and how it ended. Keel's mapping rules (one text
// block per text part, Responses summaries joined by a blank line, a Responses call id as
// "call_id|item_id", …) are the documented ones of @keel/ai's README.
import type { WireApi } from "./recordings.js";

export type ExpectedBlock =
  | { type: "text"; text: string; citations?: string[]; phase?: string }
  | { type: "thinking"; thinking: string; signature?: string; redacted?: boolean; itemId?: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "serverTool"; name: string; id: string };

export type ExpectedEnd =
  | { kind: "done"; reason: "stop" | "length" | "toolUse" }
  /** The provider paused a long turn: the client sends it back and the turn goes on. */
  | { kind: "pause" }
  | { kind: "error"; error: string };

export interface Expected {
  blocks: ExpectedBlock[];
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Searches and fetches the provider ran and bills apart. */
  serverToolUse?: { webSearch?: number; webFetch?: number };
  end: ExpectedEnd;
}

type Json = Record<string, unknown>;

function parse(payload: string): Json | undefined {
  try {
    return JSON.parse(payload) as Json;
  } catch {
    return undefined;
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function urlsOf(citations: unknown): string[] {
  if (!Array.isArray(citations)) return [];
  return citations.flatMap((c) => (typeof (c as Json)?.url === "string" ? [(c as Json).url as string] : []));
}

/** A JSON object from streamed text, or {} for none (a call without arguments). */
function args(text: string, fallback: unknown): Record<string, unknown> {
  if (text.trim() === "") return (fallback && typeof fallback === "object" ? fallback : {}) as Json;
  return JSON.parse(text) as Json;
}

const CLIENT_BLOCK = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

/** The tool a result block answers: web_search_tool_result → web_search. */
function serverName(block: Json): string {
  const type = str(block.type);
  if (type === "server_tool_use" || type === "mcp_tool_use") return str(block.name);
  return type.replace(/_tool_result$/, "");
}

export function expectAnthropic(payloads: string[]): Expected {
  interface Open {
    block: ExpectedBlock | undefined;
    text: string;
    json: string;
    raw: Json;
    citations: string[];
  }
  const blocks: (Open | undefined)[] = [];
  const byIndex = new Map<number, Open>();
  let lastStarted: Open | undefined;
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let serverToolUse: Expected["serverToolUse"];
  let end: ExpectedEnd | undefined;
  let error: string | undefined;
  const usageFrom = (u: Json | undefined, start: boolean) => {
    if (!u) return;
    // A compaction run inside the request is billed on top of the top-level counts (Anthropic's
    // compaction docs: usage.iterations).
    const extra = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const it of (u.iterations as Json[] | undefined) ?? []) {
      if (it.type !== "compaction") continue;
      extra.input += num(it.input_tokens) ?? 0;
      extra.output += num(it.output_tokens) ?? 0;
      extra.cacheRead += num(it.cache_read_input_tokens) ?? 0;
      extra.cacheWrite += num(it.cache_creation_input_tokens) ?? 0;
    }
    if (start || u.input_tokens != null) usage.input = (num(u.input_tokens) ?? 0) + extra.input;
    if (u.output_tokens != null) usage.output = (num(u.output_tokens) ?? 0) + extra.output;
    if (start || u.cache_read_input_tokens != null)
      usage.cacheRead = (num(u.cache_read_input_tokens) ?? 0) + extra.cacheRead;
    if (start || u.cache_creation_input_tokens != null)
      usage.cacheWrite = (num(u.cache_creation_input_tokens) ?? 0) + extra.cacheWrite;
    const server = u.server_tool_use as Json | undefined;
    if (server) {
      const webSearch = num(server.web_search_requests) ?? 0;
      const webFetch = num(server.web_fetch_requests) ?? 0;
      if (webSearch || webFetch)
        serverToolUse = { ...(webSearch ? { webSearch } : {}), ...(webFetch ? { webFetch } : {}) };
    }
  };
  const open = (block: Json): Open => {
    const o: Open = { block: undefined, text: "", json: "", raw: block, citations: urlsOf(block.citations) };
    const type = str(block.type);
    if (type === "text") o.text = str(block.text);
    else if (type === "thinking") o.text = str(block.thinking);
    else if (!CLIENT_BLOCK.has(type))
      o.block = { type: "serverTool", name: serverName(block), id: str(block.id ?? block.tool_use_id) };
    if (type === "thinking" && block.signature) o.json = str(block.signature);
    return o;
  };
  const close = (o: Open) => {
    const type = str(o.raw.type);
    if (type === "text") {
      if (o.text !== "")
        o.block = {
          type: "text",
          text: o.text,
          ...(o.citations.length > 0 ? { citations: o.citations } : {}),
        };
    } else if (type === "thinking") {
      o.block = { type: "thinking", thinking: o.text, ...(o.json ? { signature: o.json } : {}) };
    } else if (type === "redacted_thinking") {
      o.block = { type: "thinking", thinking: "", signature: str(o.raw.data), redacted: true };
    } else if (type === "tool_use") {
      o.block = {
        type: "toolCall",
        id: str(o.raw.id),
        name: str(o.raw.name),
        arguments: args(o.json, o.raw.input),
      };
    }
  };
  for (const payload of payloads) {
    const e = parse(payload);
    if (!e) {
      error ??= "protocol";
      break;
    }
    switch (e.type) {
      case "message_start": {
        const message = e.message as Json;
        usageFrom(message.usage as Json, true);
        // A response delivered whole in message_start.
        for (const block of (message.content as Json[] | undefined) ?? []) {
          const o = open(block);
          if (str(block.type) === "tool_use") o.json = JSON.stringify(block.input ?? {});
          close(o);
          blocks.push(o);
        }
        const stop = message.stop_reason;
        if (typeof stop === "string") end = anthropicEnd(stop);
        break;
      }
      case "content_block_start": {
        const index = num(e.index)!;
        const o = open(e.content_block as Json);
        byIndex.set(index, o);
        lastStarted = o;
        blocks.push(o);
        break;
      }
      case "content_block_delta": {
        // A delta whose index has no open block belongs to the block started last (a server that
        // numbers starts one behind its deltas after a server tool result).
        const o = byIndex.get(num(e.index)!) ?? lastStarted;
        if (!o) break;
        const d = e.delta as Json;
        if (d.type === "text_delta") o.text += str(d.text);
        else if (d.type === "thinking_delta") o.text += str(d.thinking);
        else if (d.type === "signature_delta") o.json += str(d.signature);
        else if (d.type === "input_json_delta") o.json += str(d.partial_json);
        else if (d.type === "citations_delta") o.citations.push(...urlsOf([d.citation]));
        break;
      }
      case "content_block_stop": {
        const index = num(e.index)!;
        const o = byIndex.get(index) ?? lastStarted;
        if (o) close(o);
        byIndex.delete(index);
        if (o === lastStarted) lastStarted = undefined;
        break;
      }
      case "message_delta": {
        usageFrom(e.usage as Json, false);
        const stop = (e.delta as Json).stop_reason;
        if (typeof stop === "string") end = anthropicEnd(stop);
        break;
      }
      case "error":
        error = str((e.error as Json)?.type) || "error";
        break;
    }
    if (error) break;
  }
  for (const o of blocks) if (o && !o.block) close(o);
  const done = blocks.flatMap((o) => (o?.block ? [o.block] : []));
  return {
    blocks: done,
    usage,
    ...(serverToolUse ? { serverToolUse } : {}),
    end: error ? { kind: "error", error } : (end ?? { kind: "error", error: "protocol" }),
  };
}

function anthropicEnd(stop: string): ExpectedEnd {
  if (stop === "max_tokens") return { kind: "done", reason: "length" };
  if (stop === "tool_use") return { kind: "done", reason: "toolUse" };
  if (stop === "pause_turn") return { kind: "pause" };
  if (stop === "refusal") return { kind: "error", error: "refusal" };
  if (stop === "model_context_window_exceeded") return { kind: "error", error: "context_overflow" };
  return { kind: "done", reason: "stop" };
}

export function expectChat(payloads: string[]): Expected {
  const blocks: ExpectedBlock[] = [];
  let current: { type: "text" | "thinking"; text: string } | undefined;
  const calls = new Map<number, { id: string; name: string; json: string }>();
  let finish: string | undefined;
  let usage: Expected["usage"];
  let error: string | undefined;
  const flush = () => {
    if (current && current.text !== "")
      blocks.push(
        current.type === "text"
          ? { type: "text", text: current.text }
          : { type: "thinking", thinking: current.text },
      );
    current = undefined;
  };
  const add = (type: "text" | "thinking", text: string) => {
    if (text === "") return;
    if (current?.type !== type) flush();
    current ??= { type, text: "" };
    current.text += text;
  };
  for (const payload of payloads) {
    const chunk = parse(payload);
    if (!chunk) {
      error = "protocol";
      break;
    }
    if (chunk.error) {
      error = "protocol";
      break;
    }
    for (const choice of (chunk.choices as Json[] | undefined) ?? []) {
      const delta = (choice.delta ?? {}) as Json;
      add("thinking", str(delta.reasoning_content ?? delta.reasoning));
      const content = delta.content;
      if (typeof content === "string") add("text", content);
      else if (Array.isArray(content)) {
        // Typed parts (Mistral): text, and thinking holding text parts.
        for (const part of content as Json[]) {
          if (part.type === "text") add("text", str(part.text));
          else if (part.type === "thinking") {
            const inner = part.thinking;
            add(
              "thinking",
              typeof inner === "string" ? inner : ((inner as Json[]) ?? []).map((p) => str(p.text)).join(""),
            );
          }
        }
      }
      add("text", str(delta.refusal));
      for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
        const index = num(call.index) ?? 0;
        const fn = (call.function ?? {}) as Json;
        const known = calls.get(index);
        if (!known) {
          flush();
          calls.set(index, { id: str(call.id), name: str(fn.name), json: str(fn.arguments) });
        } else known.json += str(fn.arguments);
      }
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
    }
    const u = chunk.usage as Json | undefined;
    if (u) {
      const cached =
        num((u.prompt_tokens_details as Json | undefined)?.cached_tokens) ??
        num(u.prompt_cache_hit_tokens) ??
        0;
      usage = {
        input: (num(u.prompt_tokens) ?? 0) - cached,
        output: num(u.completion_tokens) ?? 0,
        cacheRead: cached,
        cacheWrite: 0,
      };
    }
  }
  flush();
  for (const call of calls.values())
    blocks.push({ type: "toolCall", id: call.id, name: call.name, arguments: args(call.json, {}) });
  let end: ExpectedEnd;
  if (error) end = { kind: "error", error };
  else if (finish === undefined) end = { kind: "error", error: "protocol" };
  else if (finish === "content_filter") end = { kind: "error", error: "refusal" };
  else if (finish === "length") end = { kind: "done", reason: "length" };
  else end = { kind: "done", reason: finish === "tool_calls" || calls.size > 0 ? "toolUse" : "stop" };
  return { blocks, ...(usage ? { usage } : {}), end };
}

/** Responses item types a client runs itself and must answer: Keel declares none of them. */
export const CLIENT_ITEMS = new Set([
  "custom_tool_call",
  "apply_patch_call",
  "local_shell_call",
  "shell_call",
  "computer_call",
  "mcp_approval_request",
]);

const LENGTH_REASONS = new Set(["max_output_tokens", "REASON_MAX_LEN", "max_tokens", "length"]);

export function expectResponses(payloads: string[]): Expected {
  const items: (ExpectedBlock[] | undefined)[] = [];
  const texts = new Map<string, string>();
  const summaries = new Map<number, string[]>();
  const doneIds = new Set<string>();
  let usage: Expected["usage"];
  let serverToolUse: Expected["serverToolUse"];
  let end: ExpectedEnd | undefined;
  let toolUse = false;
  for (const payload of payloads) {
    const e = parse(payload);
    if (!e) {
      end = { kind: "error", error: "protocol" };
      break;
    }
    const at = num(e.output_index);
    switch (e.type) {
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const key = `${at}:${num(e.content_index) ?? 0}`;
        texts.set(key, (texts.get(key) ?? "") + str(e.delta));
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const parts = summaries.get(at!) ?? [];
        const i = num(e.summary_index) ?? num(e.content_index) ?? 0;
        parts[i] = (parts[i] ?? "") + str(e.delta);
        summaries.set(at!, parts);
        break;
      }
      case "response.output_item.done": {
        const item = e.item as Json;
        if (typeof item.id === "string") doneIds.add(item.id);
        items[at!] = itemBlocks(item, at!, texts, summaries);
        if (item.type === "function_call") toolUse = true;
        if (item.type === "web_search_call" && str((item.action as Json | undefined)?.type) === "search")
          serverToolUse = { webSearch: (serverToolUse?.webSearch ?? 0) + 1 };
        break;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        const response = e.response as Json;
        // Items only the completed response holds are final too.
        ((response.output as Json[] | undefined) ?? []).forEach((item, i) => {
          if (items[i] || (typeof item.id === "string" && doneIds.has(item.id))) return;
          items[i] = itemBlocks(item, i, texts, summaries);
          if (item.type === "function_call") toolUse = true;
        });
        const u = response.usage as Json | undefined;
        if (u) {
          const details = (u.input_tokens_details ?? {}) as Json;
          const cached = num(details.cached_tokens) ?? 0;
          const write = num(details.cache_write_tokens) ?? 0;
          usage = {
            input: (num(u.input_tokens) ?? 0) - cached - write,
            output: num(u.output_tokens) ?? 0,
            cacheRead: cached,
            cacheWrite: write,
          };
        }
        if (e.type === "response.completed")
          end = {
            kind: "done",
            reason:
              toolUse ||
              ((response.output as Json[] | undefined) ?? []).some((o) => o.type === "function_call")
                ? "toolUse"
                : "stop",
          };
        else if (e.type === "response.failed") end = { kind: "error", error: "protocol" };
        else {
          const reason = str((response.incomplete_details as Json | undefined)?.reason);
          end = LENGTH_REASONS.has(reason)
            ? { kind: "done", reason: "length" }
            : reason === "content_filter"
              ? { kind: "error", error: "refusal" }
              : { kind: "error", error: "protocol" };
        }
        break;
      }
      case "error":
        end = { kind: "error", error: "protocol" };
        break;
    }
  }
  // Items that streamed but never came in their final form (a reply cut at its length cap).
  const streamedAt = new Set(
    [...texts.keys()].map((k) => Number(k.split(":")[0])).concat([...summaries.keys()]),
  );
  for (const at of [...streamedAt].sort((a, b) => a - b)) {
    if (items[at]) continue;
    const parts = summaries.get(at);
    if (parts) items[at] = [{ type: "thinking", thinking: parts.filter((p) => p).join("\n\n") }];
    else
      items[at] = [...texts]
        .filter(([k]) => Number(k.split(":")[0]) === at)
        .map(([, text]): ExpectedBlock => ({ type: "text", text }));
  }
  return {
    blocks: items.flatMap((b) => b ?? []),
    ...(usage ? { usage } : {}),
    ...(serverToolUse ? { serverToolUse } : {}),
    end: end ?? { kind: "error", error: "protocol" },
  };
}

function itemBlocks(
  item: Json,
  at: number,
  texts: Map<string, string>,
  summaries: Map<number, string[]>,
): ExpectedBlock[] {
  switch (item.type) {
    case "message": {
      const phase = typeof item.phase === "string" ? { phase: item.phase } : {};
      return ((item.content as Json[]) ?? []).flatMap((part, i): ExpectedBlock[] => {
        // The final item completes what streamed (a server may stream none, or not all, of it);
        // one that does not continue the streamed text leaves what was shown.
        const final = str(part.type === "refusal" ? part.refusal : part.text);
        const streamed = texts.get(`${at}:${i}`) ?? "";
        const text = final.startsWith(streamed) ? final : streamed;
        if (text === "") return [];
        const citations = urlsOf(part.annotations);
        return [{ type: "text", text, ...(citations.length > 0 ? { citations } : {}), ...phase }];
      });
    }
    case "reasoning": {
      const fromItem = [...((item.summary as Json[]) ?? []), ...((item.content as Json[]) ?? [])].map((p) =>
        str(p.text),
      );
      const streamed = summaries.get(at) ?? [];
      const parts = streamed.length > 0 ? streamed : fromItem;
      return [
        { type: "thinking", thinking: parts.filter((p) => p !== "").join("\n\n"), itemId: str(item.id) },
      ];
    }
    case "function_call":
      return [
        {
          type: "toolCall",
          id: item.id ? `${str(item.call_id)}|${str(item.id)}` : str(item.call_id),
          name: str(item.name),
          arguments: args(str(item.arguments), {}),
        },
      ];
    default:
      return [{ type: "serverTool", name: str(item.type).replace(/_call$/, ""), id: str(item.id) }];
  }
}

export function expectFor(api: WireApi, payloads: string[]): Expected {
  if (api === "anthropic-messages") return expectAnthropic(payloads);
  if (api === "openai-completions") return expectChat(payloads);
  return expectResponses(payloads);
}
