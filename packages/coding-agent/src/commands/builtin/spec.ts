// What every built-in command shares: it is made for one agent (its façade is all it uses), and a
// kernel Result becomes the spec's CommandResult.
import type { CommandResult, CommandSpec } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { CodingAgent, CodingAgentError } from "../../kernel/types.js";

/** One built-in command, made for the agent it runs against (its source is said once, in index.ts). */
export type BuiltinCommand = (agent: CodingAgent) => Omit<CommandSpec, "source">;

export function outcome(
  result: Result<{ message?: string; prompt?: string }, CodingAgentError>,
): CommandResult {
  return result.match(
    (value) => value,
    (error) => ({ error: error.message }),
  );
}
