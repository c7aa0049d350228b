// Running a server's catalog entries on its connection: a tool call (auth challenges answered,
// URL steps shown, progress passed on) and a resource list or read, each made into the tool
// result the model gets. The entries themselves are built light, in ./entries.
import type { ToolCallContext, ToolResult } from "@keel/extension-sdk";
import { ErrorCode, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection, McpFailure } from "../connection/index.js";
import type { TaskState } from "../connection/tasks.js";
import { failureResult, toToolResult } from "./results.js";

export interface EntryContext {
  connection: McpConnection;
  maxChars(): number;
  /** Where whole results and binary contents are written. */
  saveDir(): string;
  /** An auth challenge in a call: resolves true once the user authorized (the call is sent again). */
  authorize(failure: Extract<McpFailure, { type: "auth_required" }>, signal: AbortSignal): Promise<boolean>;
  /** The server needs the user to visit URLs first (-32042): asks consent and opens them. */
  visitUrls(elicitations: unknown[], signal: AbortSignal): Promise<void>;
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

export async function runTool(
  context: EntryContext,
  tool: Tool,
  args: Record<string, unknown>,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection } = context;
  // A tool that can only run as a task runs as one (and is offered only by servers that take them).
  const task = tool.execution?.taskSupport === "required";
  if (task && !connection.capabilities()?.tasks?.requests?.tools?.call)
    return failureResult(connection.name, tool.name, {
      type: "unavailable",
      message: "the tool runs only as a task, and the server no longer takes task-augmented calls",
    });
  const invoke = () =>
    connection.callTool(tool.name, args, {
      signal: call.signal,
      ...(task
        ? {
            task: true,
            onTaskStatus: (state: TaskState) =>
              call.onUpdate({
                content: [
                  {
                    type: "text",
                    text: `task ${state.status}${state.statusMessage ? `: ${state.statusMessage}` : ""}`,
                  },
                ],
                details: { task: state },
              }),
          }
        : {}),
      onProgress: (progress) =>
        call.onUpdate({
          content: [{ type: "text", text: progressText(progress) }],
          details: {
            progress: {
              progress: progress.progress,
              ...(progress.total !== undefined ? { total: progress.total } : {}),
              ...(progress.message !== undefined ? { message: progress.message } : {}),
            },
          },
        }),
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

/** resources/list (and, on the first page, the URI templates) as text. */
export async function listResources(
  context: EntryContext,
  cursor: string | undefined,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection } = context;
  const server = connection.name;
  const listed = await connection.listResources(cursor, call.signal);
  if (listed.isErr()) return failureResult(server, "resources/list", listed.error);
  const lines = listed.value.resources.map(
    (r) =>
      `${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? ` — ${r.description}` : ""}`,
  );
  const templates = cursor ? undefined : await connection.listResourceTemplates(call.signal);
  const templateLines =
    templates?.isOk() && templates.value.resourceTemplates.length > 0
      ? ["", "URI templates:", ...templates.value.resourceTemplates.map((t) => `${t.uriTemplate}  ${t.name}`)]
      : [];
  const more = listed.value.nextCursor
    ? ["", `More: call again with cursor "${listed.value.nextCursor}".`]
    : [];
  const text = [...(lines.length > 0 ? lines : ["(no resources)"]), ...templateLines, ...more].join("\n");
  return { content: [{ type: "text", text }], details: { server, count: lines.length } };
}

/** resources/read, its contents as a tool result (binary kept on disk). */
export async function readResource(
  context: EntryContext,
  uri: string,
  call: ToolCallContext,
): Promise<ToolResult> {
  const { connection } = context;
  const server = connection.name;
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
}
