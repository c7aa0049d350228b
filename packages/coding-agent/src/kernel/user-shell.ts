// `!cmd`: a shell command the user runs from the prompt. It is the user's own, so no permission
// rule or approval stands between them and it (as in Claude Code's bash mode); it still runs in
// the session's shell tool, so in the OS sandbox of the permission mode in force, like the model's
// Bash calls. It shows as a tool call and lands in the journal as a notice the model reads with
// the next prompt (not as a prompt: /rewind counts only what the user asked the model).
import { randomUUID } from "node:crypto";
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { callInfo, type DeclaredTool, declarationOf } from "../tools/declarations.js";
import { contentText } from "./agent-events.js";
import type { CodingAgentError, CodingAgentEvent, ShellRun } from "./types.js";

export interface UserShellContext {
  /** The built-in tool that runs shell commands (access "exec"), which `!cmd` runs through. */
  bash: DeclaredTool | undefined;
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
  if (!k.bash) return err({ type: "config", message: "This session has no Bash tool." });
  const toolCallId = `user-shell-${randomUUID()}`;
  const key = k.bash.args?.commands?.[0];
  if (key === undefined)
    return err({ type: "config", message: "This session's shell tool names no command argument." });
  const args = { [key]: command };
  // Shown as a call of the session's own shell tool; the user typed it, so nobody is asked.
  const tool = k.bash.name;
  const declaration = declarationOf(k.bash);
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
