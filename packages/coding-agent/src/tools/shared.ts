// Helpers every built-in tool shares: path resolution against the workspace and the
// shape of text / error results (JSON-safe, never thrown).
import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { AgentTool, AgentToolResult } from "@keel/agent";
import type { ToolDeclarationFields } from "@keel/extension-sdk";
import type { Static, TSchema } from "@sinclair/typebox";
import { err, ok, type Result } from "neverthrow";
import { errnoCode, errnoMessage } from "../fs/errno.js";
import { expandHome } from "../permissions/paths.js";

/**
 * A built-in tool: the loop's tool plus the declaration every reader (permissions, the sandbox
 * policy, compaction, file history, approvals, front ends) goes by. One file per tool says it all.
 */
export type BuiltinTool<TParams extends TSchema = TSchema, TDetails = unknown> = AgentTool<
  TParams,
  TDetails
> &
  ToolDeclarationFields<Static<TParams>>;

/** Resolves a model-supplied path: absolute, `~/…`, or relative to the workspace. */
export function resolvePath(cwd: string, path: string): string {
  return resolve(cwd, expandHome(path));
}

/** Shortest faithful path to show the model: relative inside the workspace, absolute outside it. */
export function displayPath(cwd: string, absolute: string): string {
  const rel = relative(cwd, absolute);
  if (rel === "") return ".";
  if (rel.startsWith("..") || isAbsolute(rel)) return absolute;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

export function textResult<T>(text: string, details?: T): AgentToolResult<T> {
  return details === undefined
    ? { content: [{ type: "text", text }] }
    : { content: [{ type: "text", text }], details };
}

export function errorResult<T>(text: string, details?: T): AgentToolResult<T> {
  return { ...textResult(text, details), isError: true };
}

/** Explains a filesystem failure in terms the model can act on. */
export function fsErrorMessage(error: unknown, shownPath: string): string {
  switch (errnoCode(error)) {
    case "ENOENT":
      return `No such file or directory: ${shownPath}. Check the path (Glob or LS can help find it).`;
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${shownPath}.`;
    case "EISDIR":
      return `${shownPath} is a directory, not a file. Use LS to list it.`;
    case "ENOTDIR":
      return `A parent of ${shownPath} is not a directory.`;
    default:
      return `Cannot access ${shownPath}: ${errnoMessage(error)}`;
  }
}

/** Stats a path the model named (`shown` as it sees it); a failure carries fsErrorMessage's words. */
export async function statNamed(
  path: string,
  shown: string,
): Promise<Result<Stats, { type: "fs"; message: string }>> {
  try {
    return ok(await stat(path));
  } catch (error) {
    return err({ type: "fs", message: fsErrorMessage(error, shown) });
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export const abortedResult = <T>(toolName: string): AgentToolResult<T> =>
  errorResult(`${toolName} was aborted before it finished.`);
