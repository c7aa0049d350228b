// The session's live side of the extension (its `instance`): children running in this process
// and what each is doing, GetAgentResult calls waiting on them, notices held until the parent's
// next request, and the agent definitions. Everything that must survive is in session state.
import type { AgentRun, AgentRunResult, ExtensionRuntime } from "@keel/extension-sdk";
import { AgentFiles, type AgentFolder } from "./agent-files.js";
import type { SubagentConfig } from "./config.js";
import { delivered, NOTICE_KEY, owedNotices, type SubagentState } from "./delivery.js";
import { type Activity, noticeText, widgetLines } from "./report.js";

export const WIDGET = "agents";

export type SubagentRuntime = ExtensionRuntime<SubagentConfig, SubagentState, Children>;

export class Children {
  readonly live = new Map<string, { run: AgentRun; activity: Activity }>();
  readonly files: AgentFiles;
  /** GetAgentResult calls waiting on each child. */
  private readonly waiters = new Map<string, number>();
  /** Ended while the parent ran: their notice goes out before its next request (or when it ends). */
  private readonly held = new Map<string, AgentRunResult>();
  private readonly reported = new Set<string>();
  private parentRunning = false;
  private drawn = "null";
  /** Set by the agents catalog's subscription: tells the host the list changed. */
  invalidate: () => void = () => {};

  constructor(folders: AgentFolder[]) {
    this.files = new AgentFiles(folders);
  }

  /** Re-reads the definitions when a folder changed; reports each unusable file once. */
  refreshDefinitions(runtime: Pick<SubagentRuntime, "report">): void {
    const outcome = this.files.refresh();
    if (!outcome) return;
    for (const p of outcome.problems) {
      const key = `${p.path}\n${p.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      runtime.report("warning", `agent definition ${p.path} is not used: ${p.message}`);
    }
    if (outcome.changed) this.invalidate();
  }

  /** Redraws the widget when its lines changed (an empty widget is never sent, nor re-sent). */
  drawWidget(runtime: Pick<SubagentRuntime, "ui">): void {
    const lines = widgetLines([...this.live.values()].map((l) => l.activity));
    const drawn = JSON.stringify(lines ?? null);
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    runtime.ui.setWidget(WIDGET, lines);
  }

  isLive(agentId: string): boolean {
    return this.live.get(agentId)?.run.status() === "running";
  }

  /** Runs `wait` as a GetAgentResult call waiting on `agentId`: an end meanwhile is handed to it. */
  async waitingOn<T>(agentId: string, wait: () => Promise<T>): Promise<T> {
    this.waiters.set(agentId, (this.waiters.get(agentId) ?? 0) + 1);
    try {
      return await wait();
    } finally {
      const left = (this.waiters.get(agentId) ?? 1) - 1;
      if (left > 0) this.waiters.set(agentId, left);
      else this.waiters.delete(agentId);
    }
  }

  /** A GetAgentResult call handed over the result: no notice follows. */
  pulled(runtime: SubagentRuntime, agentId: string): void {
    this.held.delete(agentId);
    const next = delivered(runtime.state.get(), agentId, "pulled");
    if (next) runtime.state.set(next);
  }

  runStarted(): void {
    this.parentRunning = true;
  }

  /** The parent's next request is about to be prepared: held notices go with it. */
  turnStarting(runtime: SubagentRuntime): void {
    this.releaseHeld(runtime, false);
  }

  runEnded(runtime: SubagentRuntime): void {
    this.parentRunning = false;
    // Their end came after the run's last request: the run that follows is for them.
    this.releaseHeld(runtime, true);
  }

  /** A child ended (however); called once per child, from its result. */
  ended(runtime: SubagentRuntime, result: AgentRunResult): void {
    const background = this.live.get(result.agentId)?.activity.background ?? false;
    this.live.delete(result.agentId);
    this.drawWidget(runtime);
    const entry = runtime.state.get().children.find((c) => c.agentId === result.agentId);
    if (background)
      runtime.ui.notify(
        `agent ${result.agentId} (${result.title}) ${result.status === "completed" ? "finished" : result.status}`,
        result.status === "completed" ? "info" : "warning",
      );
    // Foreground: the SpawnAgent call that waits for it returns the result itself.
    if (entry?.delivery !== "waiting" || !entry.background) return;
    if ((this.waiters.get(result.agentId) ?? 0) > 0) {
      this.pulled(runtime, result.agentId);
      return;
    }
    if (this.parentRunning) this.held.set(result.agentId, result);
    else this.deliver(runtime, result, true);
  }

  /** Notices this branch owes (after a resume, a crash, a move of the head), handed over again. */
  reconcile(runtime: SubagentRuntime): void {
    const owed = owedNotices(runtime.state.get(), runtime.agents(), (id) => this.isLive(id));
    for (const result of owed) {
      const first =
        runtime.state.get().children.find((c) => c.agentId === result.agentId)?.delivery === "waiting";
      if (first && result.status === "interrupted")
        runtime.report(
          "warning",
          `agent ${result.agentId} (${result.title}) was interrupted: ${result.error?.message ?? "Keel stopped while it ran"}`,
        );
      this.deliver(runtime, result, false);
    }
  }

  private releaseHeld(runtime: SubagentRuntime, wake: boolean): void {
    const results = [...this.held.values()];
    this.held.clear();
    for (const result of results) this.deliver(runtime, result, wake);
  }

  /**
   * Hands the notice to the kernel under its key (journaled at most once on this branch) and
   * records that. It wakes an idle session only when someone is there to see the answer.
   */
  private deliver(runtime: SubagentRuntime, result: AgentRunResult, wake: boolean): void {
    runtime.persistNotice(noticeText(result, runtime.config.noticeChars), {
      key: NOTICE_KEY(result.agentId),
      wake: wake && runtime.ui.supports.confirm,
    });
    const next = delivered(runtime.state.get(), result.agentId, "notice");
    if (next) runtime.state.set(next);
  }
}
