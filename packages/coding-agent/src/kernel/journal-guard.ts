// Keeps runs honest about the journal: a read-only session takes no prompt, and a run whose
// journal failed (disk full, I/O error) stops before its next model request and tool call,
// since the context is a fold of the journal and would otherwise be sent unchanged forever.
import type { BeforeToolCall, PrepareRequest, RunResult } from "@keel/agent";
import type { Message } from "@keel/ai";
import type { Session } from "@keel/session";
import type { CodingAgentError, RunError } from "./types.js";

class JournalStopped extends Error {}

/** Why a prompt cannot be taken in this session, or undefined when it can. */
export function readOnlyRefusal(session: Session): CodingAgentError | undefined {
  if (!session.readOnly) return undefined;
  const reasons = session.notices.flatMap((n) => (n.type === "read_only" ? [READ_ONLY_WHY[n.reason]] : []));
  return {
    type: "session",
    problem: "read_only",
    message:
      `Session ${session.id} is open read-only (${reasons.join("; ") || "opened that way"}), so the prompt was not sent: ` +
      "nothing it led to could be recorded. Fork the session to go on in a copy.",
  };
}

const READ_ONLY_WHY = {
  requested: "opened that way",
  damaged: "its file has damaged lines",
  newer_version: "a newer Keel wrote it",
  unknown_entry_types: "it holds entry types this Keel does not know",
  history_missing: "part of its history is missing",
} as const;

export class JournalGuard {
  private failuresAtStart = 0;
  private stopped: CodingAgentError | undefined;

  constructor(private readonly session: () => Session) {}

  /** Call when a run starts: failures before it are not this run's. */
  begin(): void {
    this.failuresAtStart = this.session().stats().failures;
    this.stopped = undefined;
  }

  /** The error that stopped the current run, once the journal has failed during it. */
  failure(): CodingAgentError | undefined {
    if (this.stopped) return this.stopped;
    const session = this.session();
    if (session.stats().failures === this.failuresAtStart) return undefined;
    const cause = session.writeFailure?.message ?? "a write to the session file failed";
    this.stopped = {
      type: "session",
      problem: "journal",
      message:
        `The session journal could not be written (${cause}), so the run was stopped: what it did next would not have been recorded. ` +
        "Nothing recorded before was lost. Free disk space (or fix the cause), then continue the session.",
    };
    return this.stopped;
  }

  /**
   * A run's result as the kernel reports it: when the journal failed during it, stop reason
   * "error" with the journal's error, and the agent's history put back to the journal's
   * context (it holds what the journal could not take; the journal is the truth).
   */
  settle(run: RunResult, resetHistory: (messages: Message[]) => void): { run: RunResult; error?: RunError } {
    const failed = this.failure();
    if (failed) {
      resetHistory(this.session().context());
      return { run: { ...run, stopReason: "error" }, error: { type: "journal", message: failed.message } };
    }
    return run.error ? { run, error: run.error } : { run };
  }

  /**
   * Fails the request once the journal failed: a throwing prepareRequest is the loop's one way
   * to refuse a request, and it ends the run with stop reason "error" before anything is sent.
   */
  prepareRequest(inner: PrepareRequest): PrepareRequest {
    return async (context, info) => {
      this.check();
      const prepared = await inner(context, info);
      // Preparing may append (a capability notice, a compaction): check again before sending.
      this.check();
      return prepared;
    };
  }

  /** Runs no tool once the journal failed: its outcome could not be recorded. */
  beforeToolCall(inner: BeforeToolCall): BeforeToolCall {
    return async (call, info) => {
      const failed = this.failure();
      if (failed) return { action: "block", reason: `Not run: ${failed.message}` };
      return inner(call, info);
    };
  }

  private check(): void {
    const failed = this.failure();
    if (failed) throw new JournalStopped(failed.message);
  }
}
