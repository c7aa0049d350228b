// Keeping secrets out of what leaves the extension: tokens scrubbed from every result and error
// (a service may echo one back), and a sensitive action's argument values replaced for records.

export const REDACTED = "[redacted]";

/** Replaces every occurrence of each secret in every string inside `value` (JSON-safe in, JSON-safe out). */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((s) => s.length >= 4);
  if (live.length === 0) return value;
  const scrub = (text: string) => live.reduce((out, secret) => out.split(secret).join(REDACTED), text);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [scrub(k), walk(inner)]));
    return v;
  };
  return walk(value) as T;
}

/** The arguments as a record may keep them: names only, each value `[redacted]`. */
export function redactArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(args).map((key) => [key, REDACTED]));
}
