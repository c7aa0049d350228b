// The process exit codes and how a finished run maps onto them.
import type { RunSummary } from "@keel/coding-agent";

export const EXIT = {
  ok: 0,
  /** The run failed: provider error, context overflow, the journal could not be written, or --max-turns reached. */
  failed: 1,
  /** Usage error, nothing configured, or refused (unknown session, locked session, extension veto). */
  usage: 2,
  /**
   * The terminal closed (SIGHUP): same clean-up as SIGINT, then keel ends by SIGHUP itself, so
   * a shell reports 128 + 1.
   */
  hangup: 129,
  /** Interrupted by SIGINT; the session is closed cleanly and resumable. */
  interrupted: 130,
  /** Terminated by SIGTERM, same clean-up as SIGINT. */
  terminated: 143,
} as const;

export interface RunOutcome {
  code: number;
  /** A one-line note for stderr when the code alone does not say enough. */
  note?: string;
}

/** `signal` is the signal that made the CLI abort the run, if any. */
export function outcomeOf(
  summary: RunSummary,
  signal: "SIGINT" | "SIGTERM" | "SIGHUP" | undefined,
): RunOutcome {
  switch (summary.stopReason) {
    case "stop":
      return { code: EXIT.ok };
    case "length":
      // The run finished; its last answer hit the model's output limit.
      return {
        code: EXIT.ok,
        note: "The model stopped at its output token limit; the answer may be cut short.",
      };
    case "max_turns":
      // The task is unfinished: scripts must be able to tell, so this is a failure.
      return { code: EXIT.failed, note: `Stopped after ${summary.turns} turns (--max-turns).` };
    case "aborted":
      if (signal === "SIGTERM") return { code: EXIT.terminated };
      if (signal === "SIGHUP") return { code: EXIT.hangup };
      if (signal === "SIGINT") return { code: EXIT.interrupted };
      return { code: EXIT.failed, note: "The run was aborted." };
    case "error":
    case "context_overflow":
      return {
        code: EXIT.failed,
        note: summary.error?.message ?? `The run ended with ${summary.stopReason}.`,
      };
  }
}
