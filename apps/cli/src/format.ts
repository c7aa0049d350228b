// Short text for the screen and for listings: a tool call's one-line summary, its result hint, token
// counts, cost and dates. Pure; the TUI and the subcommands share it.

const ARG_KEYS: Record<string, string[]> = {
  Bash: ["command"],
  Read: ["path", "file_path"],
  Write: ["path", "file_path"],
  Edit: ["path", "file_path"],
  LS: ["path"],
  Glob: ["pattern"],
  Grep: ["pattern"],
};

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}

/** What goes inside `Name(…)`: the argument that says what the call does. */
export function argsSummary(toolName: string, args: Record<string, unknown>, max = 80): string {
  for (const key of ARG_KEYS[toolName] ?? []) {
    const value = args[key];
    if (typeof value === "string") return oneLine(value, max);
  }
  if (toolName === "UpdateTodos" && Array.isArray(args.todos)) return `${args.todos.length} items`;
  const firstString = Object.values(args).find((v): v is string => typeof v === "string");
  if (firstString !== undefined) return oneLine(firstString, max);
  const json = JSON.stringify(args);
  return json === "{}" ? "" : oneLine(json, max);
}

export function toolTitle(toolName: string, args: Record<string, unknown>): string {
  return `${toolName}(${argsSummary(toolName, args)})`;
}

/** "first line (+N lines)" — enough to tell what happened without the full output. */
export function resultHint(text: string, max = 70): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) return "(no output)";
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
  return oneLine(lines[0]!, max - more.length) + more;
}

export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Local date and time to the minute, e.g. 2026-12-01 09:05 (a date that does not parse as given). */
export function formatStamp(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function formatCost(dollars: number): string {
  return `$${dollars < 1 ? dollars.toFixed(4) : dollars.toFixed(2)}`;
}

/** The last `max` lines of a text: live regions must stay shorter than the screen. */
export function tailLines(text: string, max: number): { lines: string[]; hidden: number } {
  const lines = text.split("\n");
  if (lines.length <= max) return { lines, hidden: 0 };
  return { lines: lines.slice(-max), hidden: lines.length - max };
}
