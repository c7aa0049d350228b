// What goes into a run (a prompt, its images, its model and allow rules) and what comes out:
// the summary, its error, the calls that were denied; and the user's own shell command.
import type { AiError, ImageContent, Usage } from "@keel/ai";
import type { RunStopReason } from "@keel/extension-sdk";

/** Who blocked a tool call: a deny rule, the mode, nobody to ask, the user, an extension's policy. */
export type PermissionDenialSource = "rule" | "mode" | "headless" | "user" | "policy";

/** A tool call that did not run because the permission gate or an extension's policy blocked it. */
export interface PermissionDenial {
  toolCallId: string;
  /** The identity judged: `Bash`, `Edit`, a catalog entry's `group:name`. */
  toolName: string;
  /** What it would have done, at most 200 characters (the command, the path, or the arguments as JSON). */
  input: string;
  /** Why, as the model was told. */
  reason: string;
  by: PermissionDenialSource;
  /** Set in a RunSummary for a call a child agent made during the run. */
  agentId?: string;
}

/**
 * Why a run failed: the provider's typed error as @keel/ai classified it (`http` with `status`,
 * `reason`, `endpoint` and `hint`; `network` with `reason`, `code`, `proxy`; …), the loop's
 * `internal`, or the kernel's `journal` (the session file could not be written).
 */
export type RunError = AiError | { type: "internal" | "journal"; message: string };

export interface RunSummary {
  stopReason: RunStopReason;
  turns: number;
  usage: Usage;
  /** The final assistant text of the run. */
  text: string;
  durationMs: number;
  error?: RunError;
  /** Steering or follow-up messages that never reached the model (the run ended first). */
  unsent: string[];
  /** Child agents that used the model during this run, with what each used (not included in `usage`). */
  children?: { agentId: string; title: string; usage: Usage }[];
  /** Every tool call of the run that was blocked (its child agents' included, with their id), in order. */
  permissionDenials: PermissionDenial[];
  /** "denial": the user denied a tool call and asked to stop the run (stopReason is "aborted"). */
  stoppedBy?: "denial";
  /**
   * The run failed before the model answered anything: its prompt was taken back out of the
   * conversation (it is in `unsent`), so a retry does not send it twice.
   */
  promptWithdrawn?: boolean;
}

/** A shell command the user ran (`!cmd`): its output is in the conversation from now on. */
export interface ShellRun {
  command: string;
  exitCode: number | null;
  output: string;
}

/** A prompt with what comes with it: images, as image blocks (refused for models without vision). */
export interface PromptInput {
  text: string;
  images?: ImageContent[];
  /** This run only: the model it runs on (unknown: a warning, and the session's model runs it). */
  model?: string;
  /** This run only: permission rules allowed until it ends (a command file's `allowed-tools`). */
  allow?: readonly string[];
}
