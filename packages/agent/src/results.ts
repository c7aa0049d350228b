// Tool results the loop writes itself (errors, aborts) and the check on results tools return.
import type { ToolCall } from "@keel/ai";
import type { AgentToolResult } from "./types.js";

export function errorResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export const NOT_STARTED_TEXT = "Not run: the run was aborted before this tool call started.";

/** For a call whose arguments were not one JSON object (ToolCall.argumentsError). */
export function unparsedResult(call: ToolCall): AgentToolResult {
  return errorResult(
    `Not run: the arguments of this ${call.name} call were not valid JSON (${call.argumentsError}). Send the call again with its arguments as one JSON object.`,
  );
}

export function abortGraceExpiredResult(toolName: string, graceMs: number): AgentToolResult {
  return errorResult(`Aborted: ${toolName} did not stop within ${graceMs} ms after the run was aborted.`);
}

/** A tool (or afterToolCall) that returns something else is a bug; the model gets told, the run goes on. */
export function checkResult(value: unknown, source: string): AgentToolResult {
  if (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  ) {
    return value as AgentToolResult;
  }
  return errorResult(`${source} returned an invalid result (expected an object with a content array).`);
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
