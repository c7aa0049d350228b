// Tools an extension offers: resident ones (sent every request) and catalog entries (on demand).
// Structurally the same shape as @keel/agent's AgentTool, so the host runs them unchanged.
import type { ImageContent, TextContent } from "@keel/ai";
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

export interface ExtensionTool<TParams extends ToolParameters = TSchema, TDetails = unknown> {
  name: string;
  label?: string;
  description: string;
  parameters: TParams;
  /** "parallel" (default) tools in one batch run concurrently; "sequential" ones alone, in order. */
  executionMode?: "parallel" | "sequential";
  /** True when it changes the world; the kernel journals such calls (T1/T2) and asks permission. */
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

/** A catalog entry the model runs through ExecuteTool. */
export interface ExecutableCatalogEntry<TParams extends ToolParameters = ToolParameters>
  extends CatalogEntryBase,
    Omit<ExtensionTool<TParams>, "name" | "description" | "label"> {
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
