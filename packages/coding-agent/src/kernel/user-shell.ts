// `!cmd`: a shell command the user runs from the prompt. It is the user's own, so no permission
// rule or approval stands between them and it (as in Claude Code's bash mode); it still runs in
// the session's shell tool, so in the OS sandbox of the permission mode in force, like the model's
// Bash calls. It shows as a tool call and lands in the journal as a notice the model reads with
// the next prompt (not as a prompt: /rewind counts only what the user asked the model). A command
// file's `` !`cmd` `` lines take the same call (runShellCall) but are the project's text, not the
// user's typing: they are judged by the permission gate (with the file's allowed-tools), and their
// output goes into the command's prompt instead.
import { randomUUID } from "node:crypto";
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { callInfo, type DeclaredTool, declarationOf } from "../tools/declarations.js";
import { contentText } from "./agent-events.js";
import type { ToolPermission } from "./seams.js";
import type { CodingAgentError, CodingAgentEvent, ShellRun } from "./types.js";

export interface UserShellContext {
  /** The built-in tool that runs shell commands (access "exec"), which `!cmd` runs through. */
  bash: DeclaredTool | undefined;
  /** The gate that judges the call; none for the user's own `!cmd`. */
  permission?: ToolPermission;
  session: Session;
  emit(event: CodingAgentEvent): void;
  signal: AbortSignal;
  /** Takes known secrets out of the output (shown, journaled, read by the model). */
  scrub?(text: string): string;
}

/** The notice's source: what the user ran, kept in the conversation. */
export const USER_SHELL_SOURCE = "user-shell";

export function shellNoticeText(command: string, exitCode: number | null, output: string): string {
  return [
    "The user ran a shell command themselves (not a tool call of yours); its output is for your information:",
    `<bash-input>${command}</bash-input>`,
    `<bash-output exit-code="${exitCode ?? "none"}">`,
    output.replace(/\s+$/, ""),
    "</bash-output>",
  ].join("\n");
}

/** The command and output of a shell notice's text (for a UI replaying the conversation), or undefined. */
export function shellNoticeParts(
  text: string,
): { command: string; exitCode: string; output: string } | undefined {
  const m =
    /^The user ran a shell command[^\n]*\n<bash-input>([\s\S]*?)<\/bash-input>\n<bash-output exit-code="([^"]*)">\n([\s\S]*?)\n?<\/bash-output>$/.exec(
      text,
    );
  return m ? { command: m[1]!, exitCode: m[2]!, output: m[3]! } : undefined;
}

export async function runUserShell(
  k: UserShellContext,
  command: string,
): Promise<Result<ShellRun, CodingAgentError>> {
  const ran = await runShellCall(k, command);
  if (ran.isErr()) return err(ran.error);
  const { exitCode, output } = ran.value;
  const journaled = await k.session.appendEntry({
    type: "notice",
    source: USER_SHELL_SOURCE,
    message: { role: "user", content: shellNoticeText(command, exitCode, output), timestamp: Date.now() },
  });
  if (journaled.isErr())
    return err({
      type: "session",
      message: `The command ran, but journaling its output failed: ${journaled.error.message}`,
    });
  return ok({ command, exitCode, output });
}

/**
 * One command the user caused (their `!cmd`, a command file's `` !`cmd` `` line), as a call of the
 * session's shell tool: judged by the gate when one is given, run by the tool (in its sandbox),
 * shown as a tool call.
 */
export async function runShellCall(
  k: Omit<UserShellContext, "session">,
  command: string,
): Promise<Result<{ exitCode: number | null; output: string }, CodingAgentError>> {
  if (!k.bash) return err({ type: "config", message: "This session has no Bash tool." });
  const toolCallId = `user-shell-${randomUUID()}`;
  const key = k.bash.args?.commands?.[0];
  if (key === undefined)
    return err({ type: "config", message: "This session's shell tool names no command argument." });
  const args = { [key]: command };
  // Shown (and, for a command file's line, judged) as a call of the session's own shell tool.
  const tool = k.bash.name;
  const declaration = declarationOf(k.bash);
  if (k.permission) {
    const permitted = await k.permission({
      toolName: tool,
      toolCallId,
      args,
      ...(declaration ? { declaration } : {}),
      approval: "kernel",
    });
    if (permitted.action === "block")
      return err({ type: "extension", message: `Not run: ${permitted.reason}` });
  }
  k.emit({ type: "tool_start", toolCallId, toolName: tool, args, ...callInfo(declaration, args) });
  const scrub = k.scrub ?? ((text: string) => text);
  const result = await k.bash.execute(args, {
    signal: k.signal,
    toolCallId,
    onUpdate: (partial) =>
      k.emit({
        type: "tool_update",
        toolCallId,
        toolName: tool,
        text: scrub(contentText(partial.content)),
      }),
  });
  const output = scrub(contentText(result.content));
  const exitCode = (result.details as { exitCode?: number | null } | undefined)?.exitCode ?? null;
  k.emit({
    type: "tool_end",
    toolCallId,
    toolName: tool,
    isError: result.isError === true,
    text: output,
    ...(result.details !== undefined ? { details: result.details } : {}),
  });
  return ok({ exitCode, output });
}
