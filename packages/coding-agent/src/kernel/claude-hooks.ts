// Claude Code's hook protocol on Keel's hooks, so hooks written for Claude Code work unchanged:
// the event as JSON on stdin (session_id, transcript_path, cwd, permission_mode,
// hook_event_name, tool_name, tool_input, …), exit code 2 to block with stderr as the reason,
// and JSON decisions on stdout with exit 0. PreToolUse → beforeToolCall, PostToolUse and
// PostToolUseFailure → afterToolCall (by the result), UserPromptSubmit → beforeAgentStart, Stop →
// runEnd, SessionStart → sessionStart, SessionEnd → sessionShutdown, PostCompact → compaction,
// Notification → the permission gate asking the user (fired, not waited for).
// One deliberate difference: a PreToolUse or UserPromptSubmit command that fails in another way
// (exit 1, a crash, a missing script) blocks, where Claude Code would let the call through:
// Keel's policy hooks fail closed.
import type {
  AfterToolCallEvent,
  BeforeAgentStartEvent,
  CompactionEvent,
  ExtensionRuntime,
  RunEndEvent,
  SessionShutdownEvent,
  SessionStartEvent,
  ToolCallEvent,
} from "@keel/extension-sdk";
import type { ClaudeHookName } from "../config/hook-names.js";
import { type HookRun, matches, runHookCommand } from "./config-hooks.js";

/** What the hooks' input carries that the extension runtime does not say. */
export interface ClaudeHookInfo {
  mode(): string;
  sessionFile(): string | undefined;
  /** Config's `env`, given to every hook command. */
  env: Readonly<Record<string, string>>;
  /** Subscribes to the moments Keel wants the user's attention (an approval asked); returns the unsubscribe. */
  onAttention?(listener: (attention: Attention) => void): () => void;
  /** Says what went wrong in a hook no run waits for (Notification). */
  report?(message: string): void;
}

/** What Claude Code's Notification hook hears. */
export interface Attention {
  sessionId: string;
  message: string;
  /** Claude Code's notification_type: "permission_prompt" when the permission gate asks. */
  type: string;
}

/** Claude Code's SessionEnd reasons: Keel's switch (/new, /resume) is its /clear. */
const END_REASON: Record<SessionShutdownEvent["reason"], string | undefined> = {
  exit: "other",
  switch: "clear",
  fork: "other",
  reload: undefined,
};

/** A Stop hook may keep the agent going this many times in a row, then Keel stops asking it. */
const MAX_STOP_CONTINUATIONS = 8;

type Json = Record<string, unknown>;

function parseJson(stdout: string): Json | undefined {
  if (!stdout.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(stdout);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const specific = (json: Json | undefined): Json =>
  typeof json?.hookSpecificOutput === "object" && json.hookSpecificOutput !== null
    ? (json.hookSpecificOutput as Json)
    : {};

/** Claude Code's tools take `file_path` (absolute); Keel's take `path`. Hooks see both. */
function toolInput(args: Record<string, unknown>, cwd: string): Record<string, unknown> {
  if (typeof args.path !== "string" || args.file_path !== undefined) return args;
  const absolute = args.path.startsWith("/") ? args.path : `${cwd}/${args.path}`;
  return { ...args, file_path: absolute };
}

function fromToolInput(
  updated: Json,
  original: Record<string, unknown>,
  cwd: string,
): Record<string, unknown> {
  const given = toolInput(original, cwd);
  if (given === original || !("file_path" in updated)) return updated;
  const { file_path, ...rest } = updated;
  return file_path === given.file_path ? { ...rest, path: original.path } : { ...rest, path: file_path };
}

export function claudeHandlers(
  events: Partial<Record<ClaudeHookName, HookRun[]>>,
  cwd: string,
  info: ClaudeHookInfo,
): Record<string, (event: never, runtime: ExtensionRuntime) => Promise<unknown>> {
  const base = (name: ClaudeHookName, runtime: ExtensionRuntime) => ({
    session_id: runtime.session.id,
    transcript_path: info.sessionFile() ?? "",
    cwd: runtime.cwd,
    permission_mode: info.mode(),
    hook_event_name: name,
  });
  const each = async (
    name: ClaudeHookName,
    subject: string | undefined,
    input: Json,
    onOutcome: (run: HookRun, code: number | null, stdout: string, stderr: string) => unknown,
  ): Promise<unknown> => {
    for (const run of (events[name] ?? []).filter((r) => matches(r, subject))) {
      const outcome = await runHookCommand(run, input, cwd, info.env);
      const answer = onOutcome(run, outcome.code, outcome.stdout, outcome.stderr);
      if (answer !== undefined) return answer;
    }
    return undefined;
  };
  const failed = (name: string, run: HookRun, code: number | null, stderr: string) =>
    new Error(`${name} hook "${run.command}" exited ${code}${stderr ? `: ${stderr}` : ""}`);
  // Events a hook cannot change (exit 2 means nothing there): a failing command is reported like
  // any observer's.
  const observe = (name: ClaudeHookName, subject: string, input: Json) =>
    each(name, subject, input, (run, code, _o, stderr) => {
      if (code !== 0 && code !== 2) throw failed(name, run, code, stderr);
      return undefined;
    });

  const handlers: Record<string, (event: never, runtime: ExtensionRuntime) => Promise<unknown>> = {};

  if (events.PreToolUse)
    handlers.beforeToolCall = async (event: ToolCallEvent, runtime) => {
      let args = event.args;
      const input = () => ({
        ...base("PreToolUse", runtime),
        tool_name: event.toolName,
        tool_input: toolInput(args, cwd),
        tool_use_id: event.toolCallId,
      });
      for (const run of (events.PreToolUse ?? []).filter((r) => matches(r, event.toolName))) {
        const { code, stdout, stderr } = await runHookCommand(run, input(), cwd, info.env);
        if (code === 2)
          return { action: "block", reason: stderr || `Blocked by the PreToolUse hook ${run.command}` };
        if (code !== 0) throw failed("PreToolUse", run, code, stderr);
        const json = parseJson(stdout);
        const out = specific(json);
        if (json?.continue === false)
          return {
            action: "block",
            reason: str(json.stopReason) ?? `Stopped by the PreToolUse hook ${run.command}`,
          };
        if (out.permissionDecision === "deny" || json?.decision === "block")
          return {
            action: "block",
            reason:
              str(out.permissionDecisionReason) ??
              str(json?.reason) ??
              `Denied by the PreToolUse hook ${run.command}`,
          };
        // "allow" and "ask" leave the call to Keel's permissions: a hook can only tighten them.
        if (typeof out.updatedInput === "object" && out.updatedInput !== null)
          args = fromToolInput(out.updatedInput as Json, args, cwd);
      }
      return args === event.args ? undefined : { action: "continue", args };
    };

  if (events.PostToolUse || events.PostToolUseFailure)
    handlers.afterToolCall = async (event: AfterToolCallEvent, runtime) => {
      const output = event.result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
      // As in Claude Code: PostToolUse after a call that succeeded, PostToolUseFailure after one that failed.
      const failed_ = event.result.isError === true;
      const name: ClaudeHookName = failed_ ? "PostToolUseFailure" : "PostToolUse";
      if (!events[name]) return undefined;
      const feedback: string[] = [];
      await each(
        name,
        event.toolName,
        {
          ...base(name, runtime),
          tool_name: event.toolName,
          tool_input: toolInput(event.args, cwd),
          ...(failed_
            ? { error: output, is_interrupt: false }
            : { tool_response: { output, is_error: false } }),
          tool_use_id: event.toolCallId,
        },
        (run, code, stdout, stderr) => {
          if (code === 2) feedback.push(stderr || `The ${name} hook ${run.command} objected.`);
          else if (code !== 0) throw failed(name, run, code, stderr);
          const json = parseJson(stdout);
          if (json?.decision === "block")
            feedback.push(str(json.reason) ?? `The ${name} hook ${run.command} objected.`);
          const context = str(specific(json).additionalContext);
          if (context) feedback.push(context);
          return undefined;
        },
      );
      if (feedback.length === 0) return undefined;
      const note = { type: "text" as const, text: `${name} hook feedback:\n${feedback.join("\n")}` };
      return { result: { ...event.result, content: [...event.result.content, note] } };
    };

  if (events.UserPromptSubmit)
    handlers.beforeAgentStart = async (event: BeforeAgentStartEvent, runtime) => {
      const context: string[] = [];
      await each(
        "UserPromptSubmit",
        undefined,
        { ...base("UserPromptSubmit", runtime), prompt: event.prompt },
        (run, code, stdout, stderr) => {
          if (code === 2)
            throw new Error(stderr || `the UserPromptSubmit hook ${run.command} blocked the prompt`);
          if (code !== 0) throw failed("UserPromptSubmit", run, code, stderr);
          const json = parseJson(stdout);
          if (json?.decision === "block" || json?.continue === false)
            throw new Error(
              str(json.reason) ??
                str(json.stopReason) ??
                `the UserPromptSubmit hook ${run.command} blocked the prompt`,
            );
          const added = json ? str(specific(json).additionalContext) : str(stdout);
          if (added) context.push(added);
          return undefined;
        },
      );
      if (context.length === 0) return undefined;
      return {
        prompt: `${event.prompt}\n\n<user-prompt-submit-hook>\n${context.join("\n")}\n</user-prompt-submit-hook>`,
      };
    };

  if (events.Stop) {
    let continuations = 0;
    handlers.runEnd = async (event: RunEndEvent, runtime) => {
      // Only when the model finished on its own: not after an interrupt, a failure or a limit.
      if (event.stopReason !== "stop") {
        continuations = 0;
        return undefined;
      }
      const reason = (await each(
        "Stop",
        undefined,
        { ...base("Stop", runtime), stop_hook_active: continuations > 0 },
        (run, code, stdout, stderr) => {
          if (code === 2) return stderr || `The Stop hook ${run.command} asked to go on.`;
          if (code !== 0) throw failed("Stop", run, code, stderr);
          const json = parseJson(stdout);
          return json?.decision === "block"
            ? (str(json.reason) ?? `The Stop hook ${run.command} asked to go on.`)
            : undefined;
        },
      )) as string | undefined;
      if (reason === undefined || continuations >= MAX_STOP_CONTINUATIONS) {
        if (reason !== undefined)
          runtime.report(
            "warning",
            `the Stop hook asked to go on ${MAX_STOP_CONTINUATIONS} times in a row; stopped anyway`,
          );
        continuations = 0;
        return undefined;
      }
      continuations++;
      // After this run has ended for everyone listening, not in the middle of its ending.
      setImmediate(() => runtime.sendMessage(reason, { deliverAs: "followUp" }));
      return undefined;
    };
  }

  if (events.SessionStart)
    handlers.sessionStart = async (event: SessionStartEvent, runtime) => {
      if (event.reason === "branch") return undefined;
      const source = event.reason === "new" ? "startup" : "resume";
      const context: string[] = [];
      await each(
        "SessionStart",
        source,
        { ...base("SessionStart", runtime), source },
        (run, code, stdout, stderr) => {
          if (code !== 0) throw failed("SessionStart", run, code, stderr);
          const json = parseJson(stdout);
          const added = json ? str(specific(json).additionalContext) : str(stdout);
          if (added) context.push(added);
          return undefined;
        },
      );
      if (context.length > 0) runtime.persistNotice(`SessionStart hook context:\n${context.join("\n")}`);
      return undefined;
    };

  if (events.SessionEnd)
    handlers.sessionShutdown = async (event: SessionShutdownEvent, runtime) => {
      const reason = END_REASON[event.reason];
      if (reason === undefined) return undefined;
      // It cannot stop the session from ending.
      await observe("SessionEnd", reason, { ...base("SessionEnd", runtime), reason });
      return undefined;
    };

  if (events.PostCompact)
    handlers.compaction = async (event: CompactionEvent, runtime) => {
      const trigger = event.reason === "manual" ? "manual" : "auto";
      await observe("PostCompact", trigger, { ...base("PostCompact", runtime), trigger });
      return undefined;
    };

  if (events.Notification && info.onAttention) {
    info.onAttention((attention) => {
      const input = {
        session_id: attention.sessionId,
        transcript_path: info.sessionFile() ?? "",
        cwd,
        permission_mode: info.mode(),
        hook_event_name: "Notification",
        message: attention.message,
        notification_type: attention.type,
      };
      void (async () => {
        for (const run of (events.Notification ?? []).filter((r) => matches(r, attention.type))) {
          const { code, stderr } = await runHookCommand(run, input, cwd, info.env);
          if (code !== 0 && code !== 2) info.report?.(failed("Notification", run, code, stderr).message);
        }
      })();
    });
  }

  return handlers;
}
