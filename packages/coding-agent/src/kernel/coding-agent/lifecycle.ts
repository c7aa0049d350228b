// A session kernel's start and end: recovery of what a crash interrupted (before anything else
// is journaled), and close — hooks first, then the aborted run's end, the extensions, the journal.
import { rmSync } from "node:fs";
import type { Diagnostic } from "@keel/extension-sdk";
import { recoveryMessage, recoveryToolResults } from "@keel/session";
import type { CodingAgentEvent } from "../types.js";
import type { KernelState } from "./state.js";

/** How long close() waits for an aborted run to journal its end. */
const RUN_END_WAIT_MS = 150;

export type CloseReason = "exit" | "switch" | "reload";

export class Lifecycle {
  private readonly closeHooks: (() => Promise<void>)[] = [];
  private closing: Promise<void> | undefined;

  constructor(
    private readonly state: KernelState,
    private readonly deps: {
      emit: (event: CodingAgentEvent) => void;
      report: (level: Diagnostic["level"], message: string) => void;
      /** Stops whatever goes on: the run, a compaction, the user's command. */
      abort: () => void;
    },
  ) {}

  /** Tells model and user about work a crash interrupted, then journals results for orphan calls. */
  async recover(): Promise<void> {
    const state = this.state;
    const actions = state.session.fold().recovery;
    // A read-only session is only looked at: it cannot take the results that close the calls.
    if (actions.length === 0 || state.session.readOnly) return;
    // The reply cut off mid-stream is journaled too: the user saw it, and the next entry
    // would otherwise supersede its checkpoint.
    const restored = actions.flatMap((a) =>
      a.kind === "interrupted_message" && a.message.content.length > 0 ? [a.message] : [],
    );
    for (const result of [...recoveryToolResults(actions, Date.now()), ...restored]) {
      const appended = await state.session.appendMessage(result);
      if (appended.isErr())
        this.deps.report("error", `Could not journal recovery: ${appended.error.message}`);
    }
    state.agent.replaceMessages(state.session.context());
    this.deps.emit({ type: "recovery", text: recoveryMessage(actions) });
  }

  /** Runs before the session closes (child agents are stopped and journaled). */
  onClose(hook: () => Promise<void>): void {
    this.closeHooks.push(hook);
  }

  /** Idempotent; a second caller waits for the same close (an exit must not outrun the unlock). */
  close(reason: CloseReason): Promise<void> {
    this.closing ??= this.closeOnce(reason);
    return this.closing;
  }

  private async closeOnce(reason: CloseReason): Promise<void> {
    const state = this.state;
    state.closed = true;
    this.deps.abort();
    for (const hook of this.closeHooks) await hook();
    // The aborted run still journals what it did (tool results, T2s, the cut reply); the session
    // file must be open for that. Briefly: a tool that ignores its abort must not hold the close
    // (and the lock) for the loop's whole grace; a forced exit gives close() only a moment.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...state.runs]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, RUN_END_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    await state.ownHost?.shutdown(reason);
    await state.notices.flush();
    await state.session.close();
    if (state.parts.temporaryDir) rmSync(state.parts.temporaryDir, { recursive: true, force: true });
    if (state.parts.ownsSandbox) await state.parts.sandbox?.close();
  }
}
