// What a tool call is shown as (its one line and its access), from the live declarations: the
// resident tools the loop holds and the catalog entries an ExecuteTool call runs by `group:name`.
import type { AgentTool } from "@keel/agent";
import type { CatalogView } from "../host/catalog-tools.js";
import { EXECUTE_TOOL, shownRef } from "../host/catalogs.js";
import { callInfo, type DeclaredTool, declarationOf } from "../tools/declarations.js";
import type { ToolCallInfo } from "./types.js";

export function describeCall(
  tools: readonly AgentTool[],
  catalogs: Pick<CatalogView, "resolve"> | undefined,
  toolName: string,
  args: Record<string, unknown>,
): ToolCallInfo {
  // The catalog's dispatcher is shown as the entry it runs, with that entry's own arguments.
  if (toolName === EXECUTE_TOOL && typeof args.toolRef === "string") {
    const item = catalogs?.resolve(args.toolRef);
    if (item && item.entry.executable !== false) {
      const inner =
        typeof args.arguments === "object" && args.arguments !== null
          ? (args.arguments as Record<string, unknown>)
          : {};
      const info = callInfo(declarationOf(item.entry as DeclaredTool), inner);
      const shown = shownRef(item.group, item.name);
      return { ...info, summary: info.summary ? `${shown} ${info.summary}` : shown };
    }
  }
  const tool = tools.find((t) => t.name === toolName) as DeclaredTool | undefined;
  if (tool) return callInfo(declarationOf(tool), args);
  const entry = catalogs?.resolve(toolName);
  return callInfo(
    entry && entry.entry.executable !== false ? declarationOf(entry.entry as DeclaredTool) : undefined,
    args,
  );
}
