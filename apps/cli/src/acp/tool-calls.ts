// The one place Keel's tool calls become ACP tool calls: kind, title, locations and content
// (diffs for file changes, a command's output), from what the tools declare: the kind from their
// access, the title from their summary (tool events carry both; replays and approvals ask the
// kernel's describeToolCall).
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

/** What a tool-start event (or an approval) says of a call. */
export interface ToolCallFacts {
  toolName: string;
  args: Record<string, unknown>;
  /** The tool's declared access ("none" | "read" | "write" | "exec" | "network"); absent: undeclared. */
  access?: string;
  /** The tool's one-line summary of the call. */
  summary?: string;
}

/** Kinds by declared access: how editors pick icons and group calls. */
const KIND_BY_ACCESS: Record<string, ToolKind> = {
  read: "read",
  write: "edit",
  exec: "execute",
  network: "fetch",
  none: "other",
};

/** A Write's "before" is shown only for files small enough to diff in an editor panel. */
const MAX_DIFF_FILE_BYTES = 512 * 1024;
/** What of a tool's text result goes into the editor's tool call (the model got all of it). */
const MAX_RESULT_CHARS = 8_000;

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** By the tool's declared access; an undeclared tool is "other". */
export function toolKind(facts: ToolCallFacts): ToolKind {
  return facts.access !== undefined ? (KIND_BY_ACCESS[facts.access] ?? "other") : "other";
}

/** The path a file tool works on, absolute, when it names one. */
function filePath(facts: ToolCallFacts, cwd: string): string | undefined {
  const path = str(facts.args.path) ?? str(facts.args.file_path);
  if (path === undefined || path === "") return undefined;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function toolTitle(facts: ToolCallFacts): string {
  if (facts.summary) return facts.summary;
  const { args } = facts;
  const what =
    str(args.description) ??
    str(args.command) ??
    str(args.path) ??
    str(args.file_path) ??
    str(args.pattern) ??
    str(args.url) ??
    str(args.query);
  return what ? `${facts.toolName} ${oneLine(what)}` : facts.toolName;
}

export function toolLocations(facts: ToolCallFacts, cwd: string): ToolCallLocation[] {
  const roles = facts.args.paths;
  if (Array.isArray(roles))
    return roles.filter((p): p is string => typeof p === "string").map((p) => ({ path: resolve(cwd, p) }));
  const path = filePath(facts, cwd);
  if (!path) return [];
  const offset = facts.args.offset;
  return [typeof offset === "number" ? { path, line: offset } : { path }];
}

/** A file's text on disk, for a diff's "before"; null when there is none to show. */
function diskText(path: string): string | null {
  try {
    if (statSync(path).size > MAX_DIFF_FILE_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * What a whole-file write's diff shows as "before": the editor's text (its unsaved buffer) when it
 * reads files for Keel, else the disk's; null for no file, one too large to diff, or a failed read.
 */
export function beforeReader(
  editorRead?: (path: string) => Promise<{ unwrapOr(fallback: null): string | null }>,
): (path: string) => Promise<string | null> {
  return async (path) => {
    const onDisk = diskText(path);
    if (onDisk === null || !editorRead) return onDisk;
    return (await editorRead(path)).unwrapOr(null);
  };
}

/** The file a call replaces whole (a `content` argument of an edit-kind call): its diff needs a "before". */
export function replacedFile(facts: ToolCallFacts, cwd: string): string | undefined {
  const path = filePath(facts, cwd);
  return path && toolKind(facts) === "edit" && typeof facts.args.content === "string" ? path : undefined;
}

/**
 * What a call is about to do, shown with it from the start: the diff of a file change. `before`:
 * the text of the file it replaces whole (see replacedFile), null when unknown.
 */
export function callContent(
  facts: ToolCallFacts,
  cwd: string,
  before: string | null = null,
): ToolCallContent[] {
  const path = filePath(facts, cwd);
  if (!path || toolKind(facts) !== "edit") return [];
  const { args } = facts;
  if (typeof args.content === "string")
    return [{ type: "diff", path, oldText: before, newText: args.content }];
  const edits = Array.isArray(args.edits)
    ? (args.edits as Record<string, unknown>[])
    : [{ old_string: args.old_string, new_string: args.new_string }];
  return edits
    .filter((e) => typeof e.old_string === "string" && typeof e.new_string === "string")
    .map((e) => ({ type: "diff", path, oldText: e.old_string as string, newText: e.new_string as string }));
}

function fenced(text: string): string {
  const cut =
    text.length > MAX_RESULT_CHARS
      ? `${text.slice(0, MAX_RESULT_CHARS)}\n… (${text.length - MAX_RESULT_CHARS} more characters)`
      : text;
  const fence = cut.includes("```") ? "````" : "```";
  return `${fence}\n${cut}\n${fence}`;
}

/** A running call's progress (a command's output so far). */
export function progressContent(facts: ToolCallFacts, text: string): ToolCallContent[] {
  if (text === "" || toolKind(facts) !== "execute") return [];
  return [{ type: "content", content: { type: "text", text: fenced(text) } }];
}

/**
 * What a finished call leaves in the editor: a file change keeps the diff it started with (the
 * result adds nothing), a failure says why, anything else shows its (bounded) result.
 */
export function resultContent(
  facts: ToolCallFacts,
  started: ToolCallContent[],
  result: { text: string; isError: boolean },
): ToolCallContent[] {
  if (!result.isError && toolKind(facts) === "edit") return started;
  if (result.text === "") return [];
  const text = toolKind(facts) === "execute" || !result.isError ? fenced(result.text) : result.text;
  return [{ type: "content", content: { type: "text", text } }];
}
