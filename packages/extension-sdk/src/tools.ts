// Tools an extension offers: resident ones (sent every request) and catalog entries (on demand).
// Structurally the same shape as @keel/agent's AgentTool, so the host runs them unchanged.
import type { ImageContent, TextContent } from "@keel/protocol";
import type { Static, TSchema } from "@sinclair/typebox";
import type { AgentRecord, RunAgentOptions, RunAgentOutcome } from "./agents.js";
import type { ApprovalDecision, ApprovalRequest } from "./approvals.js";
import type { Exec } from "./process.js";

/**
 * A plain JSON Schema object (draft 2020-12 or draft-07), as MCP servers send them. The host
 * validates arguments against it with the same validator as TypeBox schemas' error wording.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, unknown>;
  required?: string[];
  $schema?: string;
  [keyword: string]: unknown;
}

/** A tool's parameters: a TypeBox schema (typed arguments) or plain JSON Schema (a record). */
export type ToolParameters = TSchema | JsonSchema;

/** The arguments a tool receives: typed from a TypeBox schema, a plain record otherwise. */
export type ArgsOf<P> = P extends TSchema ? Static<P> : Record<string, unknown>;

export interface ToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  /** Structured, JSON-safe data for UIs and the journal; not sent to the model. */
  details?: TDetails;
  isError?: boolean;
  /**
   * Set when the tool did not act for a permission reason of its own (its policy denied the call,
   * the user said no, or nobody could be asked): hosts list it with the run's permission denials
   * (print mode's result, stream-json), as they list the kernel's own.
   */
  denial?: { reason: string };
}

export interface ToolCallContext<TDetails = unknown> {
  signal: AbortSignal;
  toolCallId: string;
  onUpdate: (partial: ToolResult<TDetails>) => void;
  /**
   * Runs a child agent: a real kernel agent with its own context, journaled as a child session,
   * under the parent's permissions and never more. Answers at once when the host's cap is
   * reached. Foreground children are aborted with this call's signal.
   */
  runAgent(options: RunAgentOptions): Promise<RunAgentOutcome>;
  /** What the session's journal knows of its children (running or ended, also after a resume). */
  agents(): AgentRecord[];
  /**
   * Asks the user through the host's approval dialog. Not bound by hook deadlines; headless
   * hosts answer `unsupported` at once. Aborted with the call.
   */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /**
   * Runs a program for the model, as the Bash tool runs commands: inside the OS sandbox of the
   * permission mode in force, without secret-looking variables, its process tree killed when
   * this call is aborted, on timeout and once it exits. See `ExecOptions` / `ExecOutcome`.
   */
  exec: Exec;
  /** Set when this call runs inside a child agent. */
  agent?: { agentId: string; title: string };
}

/**
 * The most a tool call can do, which decides how the kernel judges and journals it:
 * - "none": touches nothing outside the session (a todo list, a search of what is loaded).
 * - "read": reads files (its `paths` / `patterns`, judged by `Read(…)` rules) or data it is
 *   configured for, changing nothing.
 * - "write": changes files (its `paths`, judged by `Edit(…)` / `Write(…)` rules) or remote state.
 * - "exec": runs shell commands (its `commands`, judged by the shell parser and `Bash(…)` rules).
 * - "network": fetches from the network without changing anything there (its `urls`, judged by
 *   `<Tool>(domain:host)` rules; the kernel asks the first time for each host).
 * A tool that declares nothing is treated as the most dangerous kind: asked about in every mode
 * but bypassPermissions (refused in plan mode) and journaled before and after it runs.
 */
export type ToolAccess = "none" | "read" | "write" | "exec" | "network";

/** The accesses, for validation and front ends. */
export const TOOL_ACCESSES: readonly ToolAccess[] = ["none", "read", "write", "exec", "network"];

/** Which arguments (top-level parameter names) carry what. */
export interface ToolArgumentRoles {
  /** Files or folders the call reads (access "read") or writes (access "write"). */
  paths?: readonly string[];
  /** Glob patterns resolved under the call's path (a read tool reaching out through its pattern). */
  patterns?: readonly string[];
  /** URLs the call fetches (access "network"): judged by `<Tool>(domain:host)` rules. */
  urls?: readonly string[];
  /** Shell command lines the call runs (access "exec"): judged by the shell parser and `Bash(…)` rules, run in the sandbox. */
  commands?: readonly string[];
}

/** What an approval shows of a call before it runs. */
export interface ToolPreview {
  format: "command" | "diff" | "text";
  text: string;
  /** The file it is about, as shown to the user. */
  path?: string;
}

/** A file's text for a preview, as `ToolPreviewContext.readText` gives it. */
export type PreviewText =
  | { ok: true; text: string; exists: boolean }
  | { ok: false; error: { type: "unreadable"; message: string } };

/** What a preview is computed with. */
export interface ToolPreviewContext {
  cwd: string;
  /**
   * A file's text (LF line ends) as the user sees it: the editor's unsaved buffer when the host
   * reads files through the editor (ACP), else the disk. No such file: `exists: false`, text "".
   * Not ok, saying why, for a folder, a binary or too large file, or a failed read.
   */
  readText(path: string): Promise<PreviewText>;
}

/**
 * How a tool describes itself to the kernel and every front end: the same fields on resident
 * tools, executable catalog entries and the kernel's built-in tools. Permissions, the sandbox
 * policy, compaction, file history, approvals, the TUI and print mode read these, never the name.
 */
export interface ToolDeclarationFields<Args = Record<string, unknown>> {
  /** The most a call can do. Absent: undeclared, treated as the most dangerous kind (asked in every mode but bypass). */
  access?: ToolAccess;
  args?: ToolArgumentRoles;
  /** One line saying what a call does (transcripts, compaction, ACP titles). Default: the first path, url or command argument, else the first string argument. */
  summary?(args: Args): string;
  /**
   * What an approval shows before the call runs; may be async (a file's text read through
   * `context.readText`). Default: the arguments.
   */
  preview?(
    args: Args,
    context: ToolPreviewContext,
  ): ToolPreview | undefined | Promise<ToolPreview | undefined>;
  /**
   * Why the call cannot succeed, when that is known before it runs (an Edit of a file the model
   * has not read): the call then fails at once with this message, before any approval is asked.
   * `undefined` lets it go on. Asked after extension policy and before the permission gate; it
   * must change nothing, and `execute` still checks for itself. One that throws is ignored.
   */
  precondition?(args: Args): string | undefined | Promise<string | undefined>;
}

/** A declaration as the kernel keeps it, whatever the tool's argument types. */
export type ToolDeclaration = ToolDeclarationFields<Record<string, unknown>>;

const firstString = (args: Record<string, unknown>, keys: readonly string[] | undefined) => {
  for (const key of keys ?? []) {
    const value = args[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
};

/**
 * The one line a call is shown as: the tool's own `summary`, else its first path, url or command
 * argument, else its first string argument, else its arguments as JSON ("" for none). A summary
 * that throws or returns a non-string falls back to the default.
 */
export function summarizeToolCall(
  declaration: ToolDeclaration | undefined,
  args: Record<string, unknown>,
): string {
  if (declaration?.summary) {
    try {
      const own = declaration.summary(args);
      if (typeof own === "string") return own;
    } catch {
      // A broken summary must not hide the call: the default says what it is.
    }
  }
  const roles = declaration?.args;
  const named =
    firstString(args, roles?.paths) ?? firstString(args, roles?.urls) ?? firstString(args, roles?.commands);
  if (named !== undefined) return named;
  const first = Object.values(args).find((v): v is string => typeof v === "string");
  if (first !== undefined) return first;
  const json = JSON.stringify(args);
  return json === undefined || json === "{}" ? "" : json;
}

export interface ExtensionTool<TParams extends ToolParameters = TSchema, TDetails = unknown>
  extends ToolDeclarationFields<ArgsOf<TParams>> {
  name: string;
  label?: string;
  description: string;
  parameters: TParams;
  /** "parallel" (default) tools in one batch run concurrently; "sequential" ones alone, in order. */
  executionMode?: "parallel" | "sequential";
  /**
   * @deprecated Declare `access` instead (write, exec, network and undeclared tools are
   * journaled; none and read are not). Still honoured as an override that can make a call
   * journaled (`true`), never less: `false` changes nothing.
   */
  sideEffects?: boolean;
  /**
   * "extension": the tool asks the user itself (through `approve`, by its own policy), so the
   * kernel applies permission rules and modes but does not ask a second time. Default "kernel".
   */
  approval?: "kernel" | "extension";
  /**
   * What the journal (T1), approval records and stream-json keep of a call's arguments, for tools
   * whose arguments may hold secrets: e.g. each value replaced by "[redacted]". The tool still
   * gets the arguments as the model sent them. Default: kept as they are.
   */
  redact?(args: Record<string, unknown>): Record<string, unknown>;
  execute(args: ArgsOf<TParams>, context: ToolCallContext<TDetails>): Promise<ToolResult<TDetails>>;
}

interface CatalogEntryBase {
  /** Unique within its catalog; letters, digits, `_`, `-`, `.`. The entry's toolRef is `group:name`. */
  name: string;
  description: string;
  /** One line for capability notices (default: the description's first line). */
  summary?: string;
  /** Changes when the entry changes (→ an "Updated" notice); default a hash of what the model sees. */
  digest?: string;
}

/**
 * A catalog entry the model runs through ExecuteTool. Its `summary` is the notice line (a
 * string, above), so a call of it is shown by the default summary of its declared `args`.
 */
export interface ExecutableCatalogEntry<TParams extends ToolParameters = ToolParameters>
  extends CatalogEntryBase,
    Omit<ExtensionTool<TParams>, "name" | "description" | "label" | "summary"> {
  executable?: true;
}

/** An entry that is listed and searchable but not run by ExecuteTool (a skill, loaded by its own tool). */
export interface ListedCatalogEntry extends CatalogEntryBase {
  executable: false;
}

/** One entry of an on-demand catalog. */
export type CatalogEntry<TParams extends ToolParameters = ToolParameters> =
  | ExecutableCatalogEntry<TParams>
  | ListedCatalogEntry;

/** Helper keeping a tool's argument types tied to its schema. */
export function defineTool<TParams extends ToolParameters, TDetails = unknown>(
  tool: ExtensionTool<TParams, TDetails>,
): ExtensionTool<TParams, TDetails> {
  return tool;
}

/** Text result shorthand. */
export function textResult<TDetails = unknown>(
  text: string,
  details?: TDetails,
  isError?: boolean,
): ToolResult<TDetails> {
  return {
    content: [{ type: "text", text }],
    ...(details === undefined ? {} : { details }),
    ...(isError ? { isError } : {}),
  };
}

const TYPEBOX_KIND = Symbol.for("TypeBox.Kind");

/** True when `schema` is a TypeBox schema (it carries TypeBox's Kind marker), not plain JSON Schema. */
export function isTypeBoxSchema(schema: unknown): schema is TSchema {
  return typeof schema === "object" && schema !== null && TYPEBOX_KIND in schema;
}
