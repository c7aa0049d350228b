// Whether an MCP tool counts as having side effects, which decides if Keel asks before it runs
// and journals it (T1/T2). Annotations come from the server, which Keel does not trust: they can
// only make Keel more careful. `readOnlyHint: true` lifts the ask only when the server's policy
// is "trust" (the default for servers in the user's own config; never for a project's servers
// unless the user's config says so) and the tool is not also marked destructive. The user's
// permission rules are applied by the kernel on top: an ask or deny rule naming the server or the
// tool always wins, read-only or not.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

export function hasSideEffects(tool: Pick<Tool, "annotations">, policy: "trust" | "ignore"): boolean {
  const hints = tool.annotations;
  if (policy === "ignore") return true;
  if (hints?.readOnlyHint !== true) return true;
  // Contradictory hints: the careful reading wins.
  return hints.destructiveHint === true;
}
