// Tools an extension offers: resident ones (sent every request) and catalog entries (on demand).
// Structurally the same shape as @keel/agent's AgentTool, so the host runs them unchanged.
import type { ImageContent, TextContent } from "@keel/ai";
import type { Static, TSchema } from "@sinclair/typebox";

export interface ToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  /** Structured, JSON-safe data for UIs and the journal; not sent to the model. */
  details?: TDetails;
  isError?: boolean;
}

export interface ToolCallContext<TDetails = unknown> {
  signal: AbortSignal;
  toolCallId: string;
  onUpdate: (partial: ToolResult<TDetails>) => void;
}

export interface ExtensionTool<TParams extends TSchema = TSchema, TDetails = unknown> {
  name: string;
  label?: string;
  description: string;
  parameters: TParams;
  /** "parallel" (default) tools in one batch run concurrently; "sequential" ones alone, in order. */
  executionMode?: "parallel" | "sequential";
  /** True when it changes the world; the kernel journals such calls (T1/T2) and asks permission. */
  sideEffects?: boolean;
  execute(args: Static<TParams>, context: ToolCallContext<TDetails>): Promise<ToolResult<TDetails>>;
}

/** One tool of an on-demand catalog. `digest` changes when the entry changes (→ "Updated" notice). */
export interface CatalogEntry<TParams extends TSchema = TSchema> extends ExtensionTool<TParams> {
  digest?: string;
}

/** Helper keeping a tool's argument types tied to its schema. */
export function defineTool<TParams extends TSchema, TDetails = unknown>(
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
