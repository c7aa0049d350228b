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

/** Where one pair of consecutive requests broke the prefix, in words a failing test can print. */
export interface PrefixRetention {
  /** The share of consecutive pairs that kept the prefix (1 for fewer than two requests). */
  retention: number;
  /** The first pair that did not, and how. */
  failure?: string;
}

export interface PrefixRetentionOptions {
  /**
   * How many history markers each request must carry, [least, most] (Keel's requests: one on the
   * last kept message, a second on the previous request's last message). Default: not checked.
   */
  historyMarkers?: readonly [number, number];
}

/** Why request `n`'s history markers are wrong, or undefined. */
function markerFault(
  request: RecordedRequest,
  n: number,
  options: PrefixRetentionOptions,
): string | undefined {
  const marks = historyBreakpoints(request);
  const messages = ((JSON.parse(request.raw) as Json).messages ?? []) as Json[];
  const [least, most] = options.historyMarkers ?? [0, Number.POSITIVE_INFINITY];
  if (marks.length < least || marks.length > most)
    return `request ${n} carries ${marks.length} history markers (expected ${least} to ${most})`;
  const onReminder = marks.find((mark) => isSystemReminder(messages[mark.message]));
  if (onReminder) return `request ${n} has a cache marker on its one-request reminder (never read back)`;
  return undefined;
}

/**
 * The cache-first invariant over consecutive requests of one branch, as the provider's cache sees
 * it: each request (minus a trailing one-request reminder) must be an exact prefix of the next,
 * system prompt and tools included, with the cache markers stripped; and the previous request's
 * last history marker must sit on a block the next request holds at the same position with the
 * same content (else the cached entry it wrote is never read), never on the one-request reminder.
 * The one check every package uses.
 */
export function prefixRetention(
  requests: readonly RecordedRequest[],
  options: PrefixRetentionOptions = {},
): PrefixRetention {
  let kept = 0;
  let failure: string | undefined;
  requests.forEach((request, n) => {
    failure ??= markerFault(request, n, options);
  });
  const same = (a: unknown, b: unknown) =>
    JSON.stringify(stripCacheControl(a)) === JSON.stringify(stripCacheControl(b));
  for (let n = 0; n + 1 < requests.length; n++) {
    const a = JSON.parse(requests[n]!.raw) as Json;
    const b = JSON.parse(requests[n + 1]!.raw) as Json;
    const am = [...((a.messages ?? []) as Json[])];
    if (isSystemReminder(am.at(-1))) am.pop();
    const bm = (b.messages ?? []) as Json[];
    const head = same([a.system, a.tools], [b.system, b.tools]);
    const firstChanged = am.findIndex((m, i) => !same(m, bm[i]));
    const mark = historyBreakpoints(requests[n]!).at(-1);
    const there = mark ? bm[mark.message]?.content : undefined;
    const markerKept = !mark || (Array.isArray(there) && same((there as Json[])[mark.block], mark.value));
    if (head && firstChanged === -1 && markerKept) kept++;
    else
      failure ??= `request ${n} → ${n + 1}: ${
        !head
          ? "the system prompt or the tools changed"
          : firstChanged !== -1
            ? `history changed at message ${firstChanged}: ${JSON.stringify(stripCacheControl(am[firstChanged])).slice(0, 400)} became ${JSON.stringify(stripCacheControl(bm[firstChanged])).slice(0, 400)}`
            : "the block the last cache marker was on moved"
      }`;
  }
  return {
    retention: requests.length < 2 ? 1 : kept / (requests.length - 1),
    ...(failure ? { failure } : {}),
  };
}

/** Throws, saying where, unless every request kept the prefix (see prefixRetention). */
export function assertPrefixRetained(
  requests: readonly RecordedRequest[],
  options: PrefixRetentionOptions = {},
): void {
  const { failure } = prefixRetention(requests, options);
  if (failure !== undefined) throw new Error(`prompt-cache prefix broken: ${failure}`);
}
