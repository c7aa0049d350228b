// How a child's result reaches the model exactly once, as session state (journaled, so it follows
// the branch and survives a resume). One entry per child this branch started:
//
//   waiting ──(foreground call returns its result)──────────────► returned
//   waiting ──(GetAgentResult hands over the ended result)──────► pulled
//   waiting ──(the child ended, nobody waiting)─► notice handed to the kernel ─► notice
//
// A notice carries the key `agent:<id>`: the kernel journals it at most once per branch. So after
// a resume (or on a branch the head moved to) every `notice` entry is handed over again — a no-op
// when it was journaled, a delivery when the crash came first — and every ended `waiting`
// background entry is handed over for the first time. A foreground child the process died under
// is owed a notice too: its SpawnAgent call never returned.
import type { AgentRecord, AgentRunResult } from "@keel/extension-sdk";
import { type Static, Type } from "@keel/extension-sdk";

export const Delivery = Type.Union([
  Type.Literal("waiting"),
  Type.Literal("notice"),
  Type.Literal("pulled"),
  Type.Literal("returned"),
]);

export const ChildEntry = Type.Object({
  agentId: Type.String(),
  title: Type.String(),
  /** The definition it ran. */
  agent: Type.String(),
  background: Type.Boolean(),
  delivery: Delivery,
});

export const SubagentState = Type.Object({ children: Type.Array(ChildEntry) });

export type ChildEntry = Static<typeof ChildEntry>;
export type SubagentState = Static<typeof SubagentState>;

export const NOTICE_KEY = (agentId: string) => `agent:${agentId}`;

export function withChild(state: SubagentState, child: ChildEntry): SubagentState {
  const at = state.children.findIndex((c) => c.agentId === child.agentId);
  return {
    children: at === -1 ? [...state.children, child] : state.children.map((c, i) => (i === at ? child : c)),
  };
}

export function withoutChild(state: SubagentState, agentId: string): SubagentState {
  return { children: state.children.filter((c) => c.agentId !== agentId) };
}

/**
 * The entry after `how` delivered it, or undefined when nothing changes: a result goes to the model
 * once, so only a waiting entry moves (pulling after the notice is a re-read, not a delivery).
 */
export function delivered(
  state: SubagentState,
  agentId: string,
  how: "notice" | "pulled" | "returned",
): SubagentState | undefined {
  const entry = state.children.find((c) => c.agentId === agentId);
  if (entry?.delivery !== "waiting") return undefined;
  return withChild(state, { ...entry, delivery: how });
}

/**
 * The notices owed on this branch now, given what the journal says of each child and which still
 * run in this process: hand each to the kernel with its key.
 */
export function owedNotices(
  state: SubagentState,
  records: readonly AgentRecord[],
  isLive: (agentId: string) => boolean,
): AgentRunResult[] {
  const byId = new Map(records.map((r) => [r.agentId, r]));
  const owed: AgentRunResult[] = [];
  for (const entry of state.children) {
    const record = byId.get(entry.agentId);
    if (!record?.result || record.status === "running" || isLive(entry.agentId)) continue;
    const endedUnseen = entry.delivery === "waiting" && (entry.background || record.status === "interrupted");
    if (endedUnseen || entry.delivery === "notice") owed.push(record.result);
  }
  return owed;
}
