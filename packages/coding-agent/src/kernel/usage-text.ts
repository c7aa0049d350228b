// Words for /cost and /permissions: the session's usage split into its own model calls, each
// child agent and external services; the permission mode and every rule with where it lives.
import type { Usage } from "@keel/ai";
import type { PermissionModeName, PermissionRuleInfo } from "./types.js";
import type { UsageBreakdown } from "./usage-ledger.js";

const dollars = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;
const count = (n: number) => n.toLocaleString("en-US");

function line(label: string, u: Usage): string {
  const input = u.input + u.cacheRead + u.cacheWrite;
  const cached = u.cacheRead > 0 ? ` (${count(u.cacheRead)} cached)` : "";
  return `${label}: ${dollars(u.cost.total)} · ${count(input)} in${cached} · ${count(u.output)} out`;
}

export function formatUsage(b: UsageBreakdown): string {
  const lines = [line("This session", b.own)];
  let total = b.own.cost.total;
  for (const child of b.children) {
    lines.push(line(`  agent ${child.title}`, child.usage));
    total += child.usage.cost.total;
  }
  for (const e of b.external) {
    const parts = [
      e.costUsd !== undefined ? dollars(e.costUsd) : undefined,
      e.requests !== undefined ? `${e.requests} requests` : undefined,
      e.credits !== undefined ? `${e.credits} credits` : undefined,
    ].filter(Boolean);
    lines.push(`  ${e.source}: ${parts.join(" · ")}`);
    total += e.costUsd ?? 0;
  }
  if (b.children.length > 0 || b.external.length > 0) lines.push(`Total: ${dollars(total)}`);
  return lines.join("\n");
}

export function permissionsText(mode: PermissionModeName, rules: readonly PermissionRuleInfo[]): string {
  const lines = [`Mode: ${mode}`];
  if (rules.length === 0) lines.push("No rules: the mode decides everything.");
  for (const behavior of ["deny", "ask", "allow"] as const) {
    const these = rules.filter((r) => r.behavior === behavior);
    if (these.length === 0) continue;
    lines.push(`${behavior}:`);
    for (const r of these)
      lines.push(`  ${r.rule}  — ${r.file ?? (r.source === "session" ? "this session" : r.source)}`);
  }
  return lines.join("\n");
}
