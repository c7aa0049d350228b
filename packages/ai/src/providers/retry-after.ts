// How long a server asks a client to wait before retrying, read from the response headers.
// Every provider classifies its HTTP errors with it, so they all honour the same spellings.

/**
 * `retry-after-ms` (OpenAI, Anthropic), else `retry-after` as seconds or an HTTP date, in ms.
 * Undefined when absent or unreadable; a date in the past means no wait.
 */
export function retryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers?.get("retry-after")?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
