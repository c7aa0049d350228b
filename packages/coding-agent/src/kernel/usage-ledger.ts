// A session's usage: its own model calls, each child agent's, and what extensions reported of
// external services, with the children of the run going on kept apart for its summary. Starts
// from what the journal already holds, so totals survive a resume.
import { addUsage, emptyUsage, type Usage } from "@keel/ai";
import type { ExternalUsage } from "@keel/extension-sdk";

export interface ChildUsage {
  agentId: string;
  title: string;
  usage: Usage;
}

/** Usage beyond this kernel's own model calls: child agents and external services. */
export interface UsageBreakdown {
  /** This kernel's own model calls. */
  own: Usage;
  /** Each child agent's total, in the order they started. */
  children: ChildUsage[];
  /** Services extensions reported (search credits …), summed per source. */
  external: ExternalUsage[];
}

const sum = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

export class UsageLedger {
  private own: Usage;
  private readonly children = new Map<string, ChildUsage>();
  private readonly external = new Map<string, ExternalUsage>();
  private inRun: ChildUsage[] = [];

  constructor(earlier: { own: Usage; children: ChildUsage[] }) {
    this.own = earlier.own;
    for (const child of earlier.children) this.children.set(child.agentId, child);
  }

  /** A run starts: its children are counted apart from here. */
  startRun(): void {
    this.inRun = [];
  }

  /** The children that used anything during the current (or last) run. */
  runChildren(): ChildUsage[] {
    return [...this.inRun];
  }

  /** This kernel's own model usage (a run's, or an extension's one-off completion). */
  addOwn(usage: Usage): void {
    this.own = addUsage(this.own, usage);
  }

  addChild(child: { agentId: string; title: string }, usage: Usage): void {
    const known = this.children.get(child.agentId) ?? { ...child, usage: emptyUsage() };
    known.usage = addUsage(known.usage, usage);
    this.children.set(child.agentId, known);
    const inRun = this.inRun.find((c) => c.agentId === child.agentId);
    if (inRun) inRun.usage = addUsage(inRun.usage, usage);
    else this.inRun.push({ ...child, usage });
  }

  addExternal(usage: ExternalUsage): void {
    const known = this.external.get(usage.source) ?? { source: usage.source };
    const next: ExternalUsage = { source: usage.source };
    const requests = sum(known.requests, usage.requests);
    const credits = sum(known.credits, usage.credits);
    const costUsd = sum(known.costUsd, usage.costUsd);
    if (requests !== undefined) next.requests = requests;
    if (credits !== undefined) next.credits = credits;
    if (costUsd !== undefined) next.costUsd = costUsd;
    this.external.set(usage.source, next);
  }

  breakdown(): UsageBreakdown {
    return { own: this.own, children: [...this.children.values()], external: [...this.external.values()] };
  }

  /** Own and children's model usage together. */
  total(): Usage {
    let total = this.own;
    for (const child of this.children.values()) total = addUsage(total, child.usage);
    return total;
  }
}
