// Small text helpers for action outputs: results are bounded (a diff or a file can be megabytes)
// and say when they were cut, so the model knows to ask for less rather than assume it saw all.

export function truncate(text: string, max: number, hint: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [truncated: ${text.length - max} more characters; ${hint}]`;
}

/** `owner/name` → its parts, or undefined when it is not that shape. */
export function splitRepo(repo: string): { owner: string; repo: string } | undefined {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo.trim());
  return match ? { owner: match[1]!, repo: match[2]! } : undefined;
}

/** A line per field that is set, for previews: `title: Crash on start`. */
export function fieldLines(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
    .join("\n");
}
