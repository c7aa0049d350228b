// Reading the prompt cache's view of recorded Anthropic requests, for the cache-discipline tests:
// the bytes with the markers taken out (to compare prefixes) and where the markers sit (read from
// the raw request, markers kept).
import type { RecordedRequest } from "./scenario.js";

type Json = Record<string, unknown>;

/** `value` without any `cache_control` field, at any depth. */
export function stripCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (value && typeof value === "object") {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = stripCacheControl(v);
    return out;
  }
  return value;
}

export interface CacheBreakpoint {
  /** Index of the message in the request's `messages`. */
  message: number;
  /** Index of the content block in that message. */
  block: number;
  /** The block, marker included. */
  value: Json;
}

/** Every `cache_control` marker inside the request's messages (the history breakpoints), in order. */
export function historyBreakpoints(request: RecordedRequest): CacheBreakpoint[] {
  const messages = ((JSON.parse(request.raw) as Json).messages ?? []) as { content: Json[] | string }[];
  const found: CacheBreakpoint[] = [];
  messages.forEach((m, i) => {
    if (Array.isArray(m.content))
      m.content.forEach((b, j) => {
        if (b.cache_control) found.push({ message: i, block: j, value: b });
      });
  });
  return found;
}

/** Whether a message is Keel's one-request reminder (a user message opening with `<system-reminder>`). */
export function isSystemReminder(message: Json | undefined): boolean {
  if (message?.role !== "user") return false;
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? String((content[0] as Json | undefined)?.text ?? "")
        : "";
  return text.startsWith("<system-reminder>");
}

/**
 * The request with its markers taken out as comparable lines: system and tools on the first,
 * then one message per line; a trailing one-request reminder dropped when asked.
 */
export function cacheLines(request: RecordedRequest, options: { dropReminder?: boolean } = {}): string[] {
  const body = stripCacheControl(JSON.parse(request.raw)) as Json;
  const messages = [...((body.messages ?? []) as Json[])];
  if (options.dropReminder && isSystemReminder(messages.at(-1))) messages.pop();
  return [JSON.stringify([body.system, body.tools]), ...messages.map((m) => JSON.stringify(m))];
}
