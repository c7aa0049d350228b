// Partial verdicts (one per command, redirect or path) and how they combine into one decision per mode.
import type { PermissionBehavior, PermissionDecision, PermissionMode } from "./types.js";

export interface Verdict {
  behavior: PermissionBehavior;
  reason: string;
  rule?: string;
  suggestions?: string[];
  /**
   * A hard ask survives bypassPermissions: an explicit ask rule, a dangerous command, something we
   * could not parse, or a write to a protected path. A soft ask is "not pre-approved".
   */
  hard?: boolean;
}

export const allow = (reason: string, rule?: string): Verdict => ({ behavior: "allow", reason, rule });
export const deny = (reason: string, rule?: string): Verdict => ({ behavior: "deny", reason, rule });
export const ask = (reason: string, suggestions: string[] = [], hard = false): Verdict => ({
  behavior: "ask",
  reason,
  suggestions,
  hard,
});

/** deny > ask > allow; then the mode decides what an ask becomes. */
export function combine(verdicts: readonly Verdict[], mode: PermissionMode): PermissionDecision {
  const denied = verdicts.find((v) => v.behavior === "deny");
  if (denied) return withRule({ behavior: "deny", reason: denied.reason }, denied.rule);

  const asks = verdicts.filter((v) => v.behavior === "ask" && (mode !== "bypassPermissions" || v.hard));
  if (asks.length > 0) {
    const reason = unique(asks.map((a) => a.reason)).join("; ");
    if (mode === "dontAsk")
      return { behavior: "deny", reason: `dontAsk mode denies what would need approval: ${reason}` };
    if (mode === "plan")
      return { behavior: "deny", reason: `plan mode allows only reading inside the workspace: ${reason}` };
    const suggestions = unique(asks.flatMap((a) => a.suggestions ?? []));
    const rule = asks.find((a) => a.rule)?.rule;
    return withRule({ behavior: "ask", reason, ...(suggestions.length > 0 ? { suggestions } : {}) }, rule);
  }

  if (verdicts.length === 0) return { behavior: "allow", reason: "nothing to check" };
  const rules = unique(verdicts.flatMap((v) => (v.rule ? [v.rule] : [])));
  const reason =
    mode === "bypassPermissions" && verdicts.some((v) => v.behavior === "ask")
      ? "bypassPermissions mode"
      : unique(verdicts.map((v) => v.reason)).join("; ");
  return withRule({ behavior: "allow", reason }, rules.length === 1 ? rules[0] : undefined);
}

function withRule(decision: PermissionDecision, rule: string | undefined): PermissionDecision {
  return rule ? { ...decision, rule } : decision;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
