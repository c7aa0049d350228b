// Tool calls that were blocked: each becomes a permission_denied event when it happens and an
// entry of the run's RunSummary.permissionDenials, so a headless run can say what it did not do.
import type { PermissionDenial, PermissionDenialSource } from "./types.js";

const MAX_INPUT = 200;

/** One line for what a call would have done: the command, the path (and pattern), else its JSON. */
export function inputSummary(toolName: string, args: Record<string, unknown>): string {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const path = text("path") ?? text("file_path") ?? text("filePath");
  const pattern = text("pattern");
  const summary =
    toolName === "Bash" && text("command") !== undefined
      ? text("command")!
      : (text("url") ??
        (path !== undefined && pattern !== undefined
          ? `${pattern} in ${path}`
          : (path ?? pattern ?? JSON.stringify(args) ?? "")));
  const line = summary.replace(/\s*\n\s*/g, " ");
  return line.length <= MAX_INPUT ? line : `${line.slice(0, MAX_INPUT - 1)}…`;
}

export interface DenialInput {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  reason: string;
  by: PermissionDenialSource;
}

export function toDenial(input: DenialInput): PermissionDenial {
  return {
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    input: inputSummary(input.toolName, input.args),
    reason: input.reason,
    by: input.by,
  };
}
