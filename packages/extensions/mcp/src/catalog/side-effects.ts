// What an MCP tool may do, as Keel's access (which decides if Keel asks before it runs and
// whether it is journaled, T1/T2). Annotations come from the server, which Keel does not trust:
// they can only make Keel more careful. `readOnlyHint: true` lifts the ask only when the server's
// policy is "trust" (the default for servers in the user's own config; never for a project's
// servers unless the user's config says so) and the tool is not also marked destructive; it is
// then "read", or "network" when the server says it reaches an open world (`openWorldHint: true`).
// Anything else is "write". The user's permission rules are applied by the kernel on top: an ask
// or deny rule naming the server or the tool always wins, read-only or not.
import type { ToolAccess } from "@keel/extension-sdk";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

export function accessOf(tool: Pick<Tool, "annotations">, policy: "trust" | "ignore"): ToolAccess {
  const hints = tool.annotations;
  if (policy === "ignore" || hints?.readOnlyHint !== true) return "write";
  // Contradictory hints: the careful reading wins.
  if (hints.destructiveHint === true) return "write";
  return hints.openWorldHint === true ? "network" : "read";
}
