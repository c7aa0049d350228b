// The tool contract: what a tool declares and what the loop hands it when it runs.
import type { ImageContent, TextContent } from "@keel/ai";
import type { Static, TSchema } from "@sinclair/typebox";

export interface AgentToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  /** Structured data for UIs and the journal; not sent to the model. */
  details?: TDetails;
  isError?: boolean;
}

export interface ToolExecutionContext<TDetails = unknown> {
  signal: AbortSignal;
  toolCallId: string;
  /** Streams a partial result to observers (e.g. Bash output as it arrives). */
  onUpdate: (partial: AgentToolResult<TDetails>) => void;
}

export interface AgentTool<TParams extends TSchema = TSchema, TDetails = unknown> {
  name: string;
  /** Short human label for UIs. */
  label?: string;
  description: string;
  parameters: TParams;
  /** "parallel" tools in one batch run concurrently; "sequential" ones run alone, in order. */
  executionMode?: "parallel" | "sequential";
  /** True when running it changes the world (files, processes, remote state): journaled with T1/T2. */
  sideEffects?: boolean;
  execute(args: Static<TParams>, context: ToolExecutionContext<TDetails>): Promise<AgentToolResult<TDetails>>;
}
