// Tool calls that were blocked: each becomes a permission_denied event when it happens and an
// entry of the run's RunSummary.permissionDenials, so a headless run can say what it did not do.
import { summarizeToolCall, type ToolDeclaration } from "@keel/extension-sdk";
import { roleValues } from "../tools/declarations.js";
import type { PermissionDenial, PermissionDenialSource } from "./types.js";

const MAX_INPUT = 200;

/**
 * One line for what a call would have done: the tool's own summary, else the commands, URLs or
 * paths it declares (a pattern with the folder it searches), else its arguments as JSON.
 */
export function inputSummary(
  declaration: ToolDeclaration | undefined,
  args: Record<string, unknown>,
): string {
  const roles = declaration?.args;
  const paths = roleValues(args, roles?.paths);
  const patterns = roleValues(args, roles?.patterns);
  const summary = declaration?.summary
    ? summarizeToolCall(declaration, args)
    : (roleValues(args, roles?.commands)[0] ??
      roleValues(args, roles?.urls)[0] ??
      (paths[0] !== undefined && patterns[0] !== undefined
        ? `${patterns[0]} in ${paths[0]}`
        : (paths[0] ?? patterns[0] ?? JSON.stringify(args) ?? "")));
  const line = summary.replace(/\s*\n\s*/g, " ");
  return line.length <= MAX_INPUT ? line : `${line.slice(0, MAX_INPUT - 1)}…`;
}

export interface DenialInput {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  reason: string;
  by: PermissionDenialSource;
  /** What the tool declares (its summary, its argument roles), for the input line. */
  declaration?: ToolDeclaration;
}

export function toDenial(input: DenialInput): PermissionDenial {
  return {
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    input: inputSummary(input.declaration, input.args),
    reason: input.reason,
    by: input.by,
  };
}
