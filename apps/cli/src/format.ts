// Short text for the screen and for listings: a tool call's title, its result hint, token counts,
// cost and dates. Pure; the TUI and the subcommands share it. What a call is summarised as comes
// from its tool's declaration (the kernel's tool_start event, describeToolCall), never its name.

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}

/** `Name(summary)`, the summary on one line within `max`; `Name` alone when there is none. */
export function toolTitle(toolName: string, summary: string, max = 80): string {
  const line = oneLine(summary, max);
  return line ? `${toolName}(${line})` : toolName;
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
