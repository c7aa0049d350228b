// What the session has used: its own model calls, its child agents', external services', and
// the run's share of it; and how full the context is for the next request.
import { addUsage, emptyUsage, type Usage } from "@keel/ai";
import type { ExternalUsage } from "@keel/extension-sdk";
import { contextTokens } from "../context-size.js";
import type { ContextUsage } from "../types.js";
import { type ChildUsage, type UsageBreakdown, UsageLedger } from "../usage-ledger.js";
import type { KernelState } from "./state.js";

export class KernelUsage {
  private readonly ledger: UsageLedger;
  /** One-off completions extensions made during the current run (counted in its usage). */
  private runExtra: Usage | undefined;

  constructor(private readonly state: KernelState) {
    const session = state.session;
    // Totals of earlier processes on this session: the journal keeps every reply's usage.
    this.ledger = new UsageLedger({
      own: session.listingInfo().usage,
      children: Object.values(session.fold().agents).flatMap((child) =>
        child.outcome ? [{ agentId: child.agentId, title: child.title, usage: child.outcome.usage }] : [],
      ),
    });
  }

  /** A run starts: its children and extra usage are counted apart from here. */
  startRun(): void {
    this.ledger.startRun();
    this.runExtra = undefined;
  }

  /** The loop's usage of a run: the session's own. */
  addRun(usage: Usage): void {
    this.ledger.addOwn(usage);
  }

  /** What a run's summary reports: the loop's usage and what extensions spent during it. */
  ofRun(loop: Usage): Usage {
    return this.runExtra ? addUsage(loop, this.runExtra) : loop;
  }

  runChildren(): ChildUsage[] {
    return this.ledger.runChildren();
  }

  /**
   * Own model usage that did not come from the loop (an extension's one-off completion): the
   * session's, and the run's when one goes on (a tool searching through the provider's own search
   * is part of what the run cost).
   */
  addOwn(usage: Usage): void {
    this.ledger.addOwn(usage);
    if (this.state.inRun) this.runExtra = addUsage(this.runExtra ?? emptyUsage(), usage);
  }

  /** A child agent's usage, counted in this session's totals. */
  addChild(child: { agentId: string; title: string }, usage: Usage): void {
    this.ledger.addChild(child, usage);
  }

  addExternal(usage: ExternalUsage): void {
    this.ledger.addExternal(usage);
  }

  breakdown(): UsageBreakdown {
    return this.ledger.breakdown();
  }

  /** This session's usage: its own model calls and its child agents'. */
  total(): Usage {
    return this.ledger.total();
  }

  context(): ContextUsage {
    const { session, model } = this.state;
    const tokens = contextTokens(session, this.state.fixedTokens, model);
    const contextWindow = model.contextWindow;
    return { tokens, contextWindow, percent: Math.round((tokens / contextWindow) * 1000) / 10 };
  }
}
