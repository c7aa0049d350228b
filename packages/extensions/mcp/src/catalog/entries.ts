// One server's catalog entries, built from its inventory (live, or known from its last listing):
// its tools as `mcp__<server>__<tool>` (JSON Schema parameters passed through as they are, side
// effects from annotations, read only as far as the policy allows) and, for servers with
// resources, entries to list and read them. Running one goes through the runner, which connects
// the server first when it is not up yet. Light: no MCP SDK at run time.
import type {
  ExecutableCatalogEntry,
  JsonSchema,
  ToolCallContext,
  ToolPreview,
  ToolResult,
} from "@keel/extension-sdk";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type ServerSpec, toolAllowed } from "../config/servers.js";
import type { ServerInventory } from "./known.js";
import type { Namer } from "./names.js";
import { accessOf } from "./side-effects.js";

/** Longer descriptions are cut (SearchTools shows them whole otherwise). */
const MAX_DESCRIPTION = 4000;

/** How an entry runs: on the live connection, once it is up. */
export interface EntryRunner {
  callTool(tool: Tool, args: Record<string, unknown>, call: ToolCallContext): Promise<ToolResult>;
  listResources(cursor: string | undefined, call: ToolCallContext): Promise<ToolResult>;
  readResource(uri: string, call: ToolCallContext): Promise<ToolResult>;
}

function describe(tool: Tool): string {
  const text = [tool.title && tool.title !== tool.name ? tool.title : undefined, tool.description]
    .filter(Boolean)
    .join(": ");
  const full = text || `MCP tool ${tool.name}`;
  return full.length <= MAX_DESCRIPTION ? full : `${full.slice(0, MAX_DESCRIPTION)}…`;
}

/**
 * The tools offered of an inventory: those the allow / deny lists let through, less those that
 * can only run as a task on a server that does not take task-augmented calls (they would always fail).
 */
export function offeredTools(
  spec: ServerSpec,
  inventory: Pick<ServerInventory, "tools" | "taskCalls">,
): Tool[] {
  return inventory.tools.filter(
    (tool) =>
      toolAllowed(spec, tool.name) && (tool.execution?.taskSupport !== "required" || inventory.taskCalls),
  );
}

/** Arguments shown in an approval, at most this many characters of pretty JSON. */
const MAX_PREVIEW_CHARS = 2000;

/**
 * What an approval shows of a call: the server and the tool, once, in the words the user
 * configured and the server gave (the entry's name is the sanitised `mcp__…` form), then every
 * argument — bounded, so a huge payload cannot flood the dialog.
 */
export function callPreview(server: string, tool: string, args: unknown): ToolPreview {
  const json = JSON.stringify(args ?? {}, null, 2) ?? "{}";
  const shown =
    json.length <= MAX_PREVIEW_CHARS
      ? json
      : `${json.slice(0, MAX_PREVIEW_CHARS)}\n… (${json.length - MAX_PREVIEW_CHARS} more characters)`;
  const body = json === "{}" ? "(no arguments)" : shown;
  return { format: "text", text: `MCP server "${server}", tool "${tool}"\n${body}` };
}

const LIST_RESOURCES: JsonSchema = {
  type: "object",
  properties: { cursor: { type: "string", description: "nextCursor of a previous page" } },
  additionalProperties: false,
};
const READ_RESOURCE: JsonSchema = {
  type: "object",
  properties: {
    uri: { type: "string", description: "The resource URI (from the list, or a link in a result)" },
  },
  required: ["uri"],
  additionalProperties: false,
};

/** The entries of one server's inventory: its tools, then (with resources) list and read. */
export function inventoryEntries(
  spec: ServerSpec,
  inventory: ServerInventory,
  namer: Namer,
  runner: EntryRunner,
): ExecutableCatalogEntry[] {
  const tools = offeredTools(spec, inventory);
  const names = namer.assign(tools.map((t) => t.name));
  const entries: ExecutableCatalogEntry[] = tools.map((tool) => ({
    name: names.get(tool.name)!,
    description: describe(tool),
    parameters: tool.inputSchema as JsonSchema,
    access: accessOf(tool, spec.readOnlyHints),
    preview: (args: unknown) => callPreview(spec.name, tool.name, args),
    execute: (args, call) => runner.callTool(tool, args as Record<string, unknown>, call),
  }));
  if (!inventory.resources) return entries;
  const server = spec.name;
  entries.push(
    {
      name: namer.claim("\u0000list_resources", "list_resources"),
      description: `List the resources MCP server "${server}" offers (URIs, names, types) and its URI templates.`,
      parameters: LIST_RESOURCES,
      access: "read",
      execute: (input, call) => {
        const cursor = (input as { cursor?: unknown }).cursor;
        return runner.listResources(typeof cursor === "string" ? cursor : undefined, call);
      },
    },
    {
      name: namer.claim("\u0000read_resource", "read_resource"),
      description: `Read a resource of MCP server "${server}" by URI.`,
      parameters: READ_RESOURCE,
      access: "read",
      execute: (input, call) => runner.readResource(String((input as { uri?: unknown }).uri), call),
    },
  );
  return entries;
}
