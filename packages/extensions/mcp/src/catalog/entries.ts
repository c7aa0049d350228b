// One server's catalog entries: its tools as `mcp__<server>__<tool>` (JSON Schema parameters
// passed through as they are, side effects from annotations, read only as far as the policy
// allows), and, for servers with resources, entries to list and read them.
import type { ExecutableCatalogEntry, JsonSchema, ToolCallContext, ToolResult } from "@keel/extension-sdk";
import { ErrorCode, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection, McpFailure } from "../connection/index.js";
import type { Namer } from "./names.js";
import { failureResult, toToolResult } from "./results.js";
import { hasSideEffects } from "./side-effects.js";

/** Longer descriptions are cut (SearchTools shows them whole otherwise). */
const MAX_DESCRIPTION = 4000;

export interface EntryContext {
  connection: McpConnection;
  namer: Namer;
  maxChars(): number;
  /** Where whole results and binary contents are written. */
  saveDir(): string;
  /** An auth challenge in a call: resolves true once the user authorized (the call is sent again). */
  authorize(failure: Extract<McpFailure, { type: "auth_required" }>, signal: AbortSignal): Promise<boolean>;
  /** The server needs the user to visit URLs first (-32042): asks consent and opens them. */
  visitUrls(elicitations: unknown[], signal: AbortSignal): Promise<void>;
}

function describe(tool: Tool): string {
  const text = [tool.title && tool.title !== tool.name ? tool.title : undefined, tool.description]
    .filter(Boolean)
    .join(": ");
  const full = text || `MCP tool ${tool.name}`;
  return full.length <= MAX_DESCRIPTION ? full : `${full.slice(0, MAX_DESCRIPTION)}…`;
}

function progressText(progress: Progress): string {
  const share = progress.total ? ` of ${progress.total}` : "";
  return `progress ${progress.progress}${share}${progress.message ? `: ${progress.message}` : ""}`;
}

function urlElicitations(failure: McpFailure): unknown[] | undefined {
  if (failure.type !== "protocol_error" || failure.code !== ErrorCode.UrlElicitationRequired)
    return undefined;
  const list = (failure.data as { elicitations?: unknown } | undefined)?.elicitations;
  return Array.isArray(list) ? list : undefined;
}

async function runTool(
  context: EntryContext,
  tool: Tool,
  args: Record<string, unknown>,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection } = context;
  const invoke = () =>
    connection.callTool(tool.name, args, {
      signal: call.signal,
      onProgress: (progress) => call.onUpdate({ content: [{ type: "text", text: progressText(progress) }] }),
    });
  let result = await invoke();
  if (result.isErr() && result.error.type === "auth_required" && !call.signal.aborted) {
    if (await context.authorize(result.error, call.signal)) result = await invoke();
  }
  if (result.isErr()) {
    const urls = urlElicitations(result.error);
    if (urls) {
      await context.visitUrls(urls, call.signal);
      return failureResult(connection.name, tool.name, {
        type: "url_required",
        message:
          "the server needs the user to finish a step in the browser first (they were shown the link); call the tool again once they are done",
      });
    }
    return failureResult(connection.name, tool.name, result.error);
  }
  return toToolResult(result.value, {
    server: connection.name,
    tool,
    maxChars: context.maxChars(),
    saveDir: context.saveDir(),
    callId: call.toolCallId,
  });
}

export function toolEntries(context: EntryContext): ExecutableCatalogEntry[] {
  const { connection } = context;
  const tools = connection.tools();
  const names = context.namer.assign(tools.map((t) => t.name));
  return tools.map((tool) => ({
    name: names.get(tool.name)!,
    description: describe(tool),
    parameters: tool.inputSchema as JsonSchema,
    sideEffects: hasSideEffects(tool, connection.spec.readOnlyHints),
    execute: (args, call) => runTool(context, tool, args as Record<string, unknown>, call),
  }));
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

/** For a server with resources: list them (and their templates) and read one. Reads by protocol. */
export function resourceEntries(context: EntryContext): ExecutableCatalogEntry[] {
  const { connection } = context;
  if (!connection.capabilities()?.resources) return [];
  const server = connection.name;
  const list: ExecutableCatalogEntry = {
    name: context.namer.claim("\u0000list_resources", "list_resources"),
    description: `List the resources MCP server "${server}" offers (URIs, names, types) and its URI templates.`,
    parameters: LIST_RESOURCES,
    sideEffects: false,
    execute: async (input, call) => {
      const args = input as { cursor?: unknown };
      const cursor = typeof args.cursor === "string" ? args.cursor : undefined;
      const listed = await connection.listResources(cursor, call.signal);
      if (listed.isErr()) return failureResult(server, "resources/list", listed.error);
      const lines = listed.value.resources.map(
        (r) =>
          `${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? ` — ${r.description}` : ""}`,
      );
      const templates = cursor ? undefined : await connection.listResourceTemplates(call.signal);
      const templateLines =
        templates?.isOk() && templates.value.resourceTemplates.length > 0
          ? [
              "",
              "URI templates:",
              ...templates.value.resourceTemplates.map((t) => `${t.uriTemplate}  ${t.name}`),
            ]
          : [];
      const more = listed.value.nextCursor
        ? ["", `More: call again with cursor "${listed.value.nextCursor}".`]
        : [];
      const text = [...(lines.length > 0 ? lines : ["(no resources)"]), ...templateLines, ...more].join("\n");
      return { content: [{ type: "text", text }], details: { server, count: lines.length } };
    },
  };
  const read: ExecutableCatalogEntry = {
    name: context.namer.claim("\u0000read_resource", "read_resource"),
    description: `Read a resource of MCP server "${server}" by URI.`,
    parameters: READ_RESOURCE,
    sideEffects: false,
    execute: async (input, call) => {
      const uri = String((input as { uri?: unknown }).uri);
      const read = await connection.readResource(uri, call.signal);
      if (read.isErr()) return failureResult(server, `resources/read ${uri}`, read.error);
      const content = read.value.contents.map((resource) => ({ type: "resource" as const, resource }));
      return toToolResult(
        { content },
        {
          server,
          tool: { name: "read_resource", inputSchema: { type: "object" } },
          maxChars: context.maxChars(),
          saveDir: context.saveDir(),
          callId: call.toolCallId,
        },
      );
    },
  };
  return [list, read];
}
