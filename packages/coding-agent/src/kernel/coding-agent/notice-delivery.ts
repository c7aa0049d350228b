// When extensions' persisted notices reach the model: with the next request while a run goes on,
// after a compaction, or at once on an idle session — where one that asked to wake it starts a run.
import type { KernelState } from "./state.js";

export class NoticeDelivery {
  constructor(
    private readonly state: KernelState,
    /** Starts a run from the history as it is (the notices go with its first request). */
    private readonly wake: () => void,
  ) {}

  /**
   * An extension's notice for the model: queued for the next request while a run goes on,
   * journaled at once otherwise; `wake` starts a run from it when the session is idle, or when
   * the run going on ends without having carried it. A `key` this branch already holds (or that
   * waits in the queue) drops the notice: a delivery retried after a resume lands once.
   */
  persist(source: string, text: string, options: { wake?: boolean; key?: string } = {}): void {
    const state = this.state;
    if (!state.notices.add(source, text, { wake: options.wake === true, key: options.key })) return;
    // A run (from its start until it returns) or a compaction delivers it when it is done.
    if (state.agent.isRunning || state.inRun || state.maintenance || state.closed) return;
    this.deliver();
  }

  deliverIfIdle(): void {
    const state = this.state;
    if (state.closed || state.inRun || state.agent.isRunning || state.maintenance) return;
    this.deliver();
  }

  /** On an idle session: waiting notices start a run when one asked to wake it, else are journaled. */
  deliver(): void {
    const state = this.state;
    if (state.notices.size === 0 || state.closed) return;
    if (state.notices.wakes) {
      this.wake();
      return;
    }
    void state.notices.flush().then(() => {
      if (!state.agent.isRunning) state.agent.replaceMessages(state.session.context());
    });
  }
}
