// Turns recovery actions into words for the model and the user, and into the tool results
// that close the interrupted calls so the next request is well-formed.
import type { ToolResultMessage } from "@keel/protocol";
import type { RecoveryAction } from "./types.js";

function describe(action: RecoveryAction): string {
  switch (action.kind) {
    case "never_ran":
      return `- ${action.toolName} (call ${action.toolCallId}) never started. It had no effect; run it again if it is still needed.`;
    case "unknown_outcome":
      return `- ${action.toolName} (call ${action.toolCallId}) started but did not report an outcome. It may or may not have taken effect: check the current state (read the file, list the directory, query the service) before running it again. Arguments: ${JSON.stringify(action.args)}`;
    case "result_missing":
      return `- ${action.toolName} (call ${action.toolCallId}) finished (${action.outcome}) but its output was lost.${action.summary ? ` Summary: ${action.summary}` : ""} Re-read whatever you need from it.`;
    case "interrupted_message":
      return "- The previous assistant reply was cut off while streaming. The part that was received is kept above; any tool call it was writing was not run.";
  }
}

/** The text that tells the model and the user what the crash left behind; "" when nothing. */
export function recoveryMessage(actions: readonly RecoveryAction[]): string {
  if (actions.length === 0) return "";
  return [
    "Keel stopped unexpectedly (crash, kill or power loss) in the middle of the previous turn. What was recovered:",
    ...actions.map(describe),
  ].join("\n");
}

/** The text a tool result for an interrupted call carries; the model sees it in place of output. */
function resultText(action: Exclude<RecoveryAction, { kind: "interrupted_message" }>): string {
  switch (action.kind) {
    case "never_ran":
      return "This tool call never ran: Keel stopped before starting it. Nothing was changed.";
    case "unknown_outcome":
      return "Keel stopped while this tool call was running; its outcome is unknown. Verify the current state before running it again.";
    case "result_missing":
      return `This tool call finished (${action.outcome}) but Keel stopped before its output was saved.${action.summary ? ` Summary: ${action.summary}` : ""}`;
  }
}

/**
 * One error tool result per interrupted call, in the order of `actions`. Appending them
 * resolves the actions: the next fold no longer reports those calls.
 */
export function recoveryToolResults(
  actions: readonly RecoveryAction[],
  timestamp: number,
): ToolResultMessage[] {
  const results: ToolResultMessage[] = [];
  for (const action of actions) {
    if (action.kind === "interrupted_message") continue;
    results.push({
      role: "toolResult",
      toolCallId: action.toolCallId,
      toolName: action.toolName,
      content: [{ type: "text", text: resultText(action) }],
      isError: action.kind !== "result_missing" || action.outcome === "error",
      details: { recovery: action.kind },
      timestamp,
    });
  }
  return results;
}
