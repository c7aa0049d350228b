// The pure fold: (entries, head) → model context, branch, extension states, told inventory
// and recovery actions. No I/O, no clock, no globals; the same input always folds the same.
import type { AssistantMessage, Message, ToolCall, UserMessage } from "@keel/protocol";
import {
  type CapabilityNoticeEntry,
  type CheckpointEntry,
  type FoldedAgent,
  type FoldedSession,
  type FoldWarning,
  isNodeEntry,
  isUnknownEntry,
  type NodeEntry,
  type OpBeginEntry,
  type OpEndEntry,
  type RecoveryAction,
  type SessionEntry,
  type ToldCapability,
} from "./types.js";

/** Entries in file order plus their position by id; the session keeps one up to date. */
export interface JournalIndex {
  readonly entries: readonly SessionEntry[];
  readonly byId: ReadonlyMap<string, number>;
}

export function indexEntries(entries: readonly SessionEntry[]): JournalIndex {
  const byId = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) byId.set(entries[i]!.id, i);
  return { entries, byId };
}

/**
 * Folds the journal as seen from `headId` (null: before the first entry). A meta entry as
 * head stands for the node it points at. An id that is not in `entries` is a caller bug.
 */
export function fold(entries: readonly SessionEntry[], headId: string | null): FoldedSession {
  return foldIndexed(indexEntries(entries), headId);
}

export function compactionSummaryMessage(summary: string, timestamp: number): UserMessage {
  return {
    role: "user",
    content: [
      {
        type: "text",
        text: `The conversation so far was compacted. Summary of the earlier part:\n\n<summary>\n${summary}\n</summary>`,
      },
    ],
    timestamp,
  };
}

export function branchSummaryMessage(summary: string, timestamp: number): UserMessage {
  return {
    role: "user",
    content: [
      {
        type: "text",
        text: `The user went back to an earlier point of this conversation. Summary of the branch that was left:\n\n<summary>\n${summary}\n</summary>`,
      },
    ],
    timestamp,
  };
}

/** Resolves a head id to the node entry it stands for (meta entries point at a node). */
export function resolveHead(index: JournalIndex, headId: string | null): string | null {
  let id = headId;
  for (let hops = 0; id !== null; hops++) {
    const at = index.byId.get(id);
    if (at === undefined) throw new Error(`fold: head ${id} is not an entry of this session`);
    const entry = index.entries[at]!;
    if (isUnknownEntry(entry) || isNodeEntry(entry)) return id;
    if (hops > index.entries.length) throw new Error("fold: leaf entries form a cycle");
    id = entry.type === "leaf" ? entry.targetId : entry.parentId;
  }
  return null;
}

interface Item {
  source: string;
  pathIndex: number;
  message: Message;
  notice?: CapabilityNoticeEntry;
}

function time(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
}

export function foldIndexed(index: JournalIndex, headId: string | null): FoldedSession {
  const warnings: FoldWarning[] = [];
  const head = resolveHead(index, headId);

  // Walk head → root, then reverse; unknown entries stay on the chain but add nothing.
  const chain: SessionEntry[] = [];
  for (let id = head; id !== null; ) {
    const at = index.byId.get(id);
    if (at === undefined) {
      const child = chain[chain.length - 1]!;
      warnings.push({ type: "dangling_parent", entryId: child.id, parentId: id });
      break;
    }
    const entry = index.entries[at]!;
    if (chain.length > index.entries.length) throw new Error("fold: parent links form a cycle");
    chain.push(entry);
    id = entry.parentId;
  }
  chain.reverse();
  const nodes = chain.filter(isNodeEntry);
  const pathIndexOf = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) pathIndexOf.set(nodes[i]!.id, i);

  let items: Item[] = [];
  const extensionStates: Record<string, unknown> = {};
  const noticeKeys: Record<string, string[]> = {};
  let model: FoldedSession["model"] = null;
  let lastCompactionId: string | null = null;
  let compactedAt = -1;

  nodes.forEach((entry, i) => {
    switch (entry.type) {
      case "message":
        items.push({ source: entry.id, pathIndex: i, message: entry.message });
        break;
      case "compaction": {
        const from = entry.firstKeptEntryId === null ? undefined : pathIndexOf.get(entry.firstKeptEntryId);
        if (entry.firstKeptEntryId !== null && (from === undefined || from >= i)) {
          warnings.push({
            type: "first_kept_not_found",
            compactionId: entry.id,
            firstKeptEntryId: entry.firstKeptEntryId,
          });
        }
        const kept = from === undefined || from >= i ? [] : items.filter((it) => it.pathIndex >= from);
        const summary = compactionSummaryMessage(entry.summary, time(entry.timestamp));
        items = [{ source: entry.id, pathIndex: i, message: summary }, ...kept];
        lastCompactionId = entry.id;
        compactedAt = i;
        break;
      }
      case "branch_summary":
        items.push({
          source: entry.id,
          pathIndex: i,
          message: branchSummaryMessage(entry.summary, time(entry.timestamp)),
        });
        break;
      case "capability_notice":
        items.push({ source: entry.id, pathIndex: i, message: entry.message, notice: entry });
        break;
      case "notice":
        items.push({ source: entry.id, pathIndex: i, message: entry.message });
        if (entry.key !== undefined)
          noticeKeys[entry.source] = [...(noticeKeys[entry.source] ?? []), entry.key];
        break;
      case "app_state":
        extensionStates[entry.extensionId] = entry.state;
        break;
      case "model_change":
        model = {
          provider: entry.provider,
          modelId: entry.modelId,
          ...(entry.thinking !== undefined ? { thinking: entry.thinking } : {}),
        };
        break;
      case "op_begin":
      case "op_end":
        break;
    }
  });

  // Only notices journaled after the last compaction count as told: a kept notice may be a diff
  // whose base notice was summarized away, so after a compaction everything is announced afresh.
  const toldInventory: Record<string, ToldCapability[]> = {};
  for (const it of items) {
    if (!it.notice || it.pathIndex < compactedAt) continue;
    for (const [source, list] of Object.entries(it.notice.inventory)) {
      if (list.length === 0) delete toldInventory[source];
      else toldInventory[source] = list;
    }
  }

  const { labels, name, checkpoint, agents } = scanSessionWide(index, head);
  const recovery = pendingToolCalls(nodes);
  const messages = items.map((it) => it.message);
  const messageSources = items.map((it) => it.source);
  if (checkpoint) {
    const restored = restoreInterrupted(checkpoint);
    recovery.push({ kind: "interrupted_message", checkpointId: checkpoint.id, message: restored });
    // A partial with nothing left to show would be an empty assistant turn; providers reject those.
    if (restored.content.length > 0) {
      messages.push(restored);
      messageSources.push(checkpoint.id);
    }
  }

  return {
    headId: head,
    path: nodes.map((n) => n.id),
    messages,
    messageSources,
    extensionStates,
    noticeKeys,
    toldInventory,
    model,
    labels,
    name,
    agents,
    lastCompactionId,
    recovery,
    warnings,
  };
}

/** Labels, name and child agents are session-wide; the live checkpoint is the last one under the head. */
function scanSessionWide(
  index: JournalIndex,
  head: string | null,
): {
  labels: Record<string, string>;
  name: string | null;
  checkpoint: CheckpointEntry | null;
  agents: Record<string, FoldedAgent>;
} {
  const labels: Record<string, string> = {};
  const agents: Record<string, FoldedAgent> = {};
  let name: string | null = null;
  let checkpoint: CheckpointEntry | null = null;
  for (const entry of index.entries) {
    if (isUnknownEntry(entry)) continue;
    if (entry.type === "agent_run") {
      const known = agents[entry.agentId];
      if (entry.phase === "start" || !known) {
        agents[entry.agentId] = {
          agentId: entry.agentId,
          title: entry.title,
          sessionId: entry.sessionId,
          ...(entry.sessionFile !== undefined ? { sessionFile: entry.sessionFile } : {}),
          ...(entry.toolCallId !== undefined ? { toolCallId: entry.toolCallId } : {}),
          startedAt: entry.timestamp,
          ...(known?.outcome ? { outcome: known.outcome } : {}),
        };
      }
      if (entry.phase === "end" && entry.outcome) agents[entry.agentId]!.outcome = entry.outcome;
    } else if (entry.type === "label") {
      if (entry.label === "") delete labels[entry.targetId];
      else labels[entry.targetId] = entry.label;
    } else if (entry.type === "info") {
      if (entry.name !== undefined) name = entry.name;
    }
    if (entry.parentId !== head) continue;
    // Anything that extends the branch at the head means the streamed message ended
    // (landed, failed or was abandoned), so an earlier checkpoint there is superseded.
    if (entry.type === "checkpoint") checkpoint = entry;
    else if (isNodeEntry(entry)) checkpoint = null;
  }
  return { labels, name, checkpoint, agents };
}

const FAILED: ReadonlySet<AssistantMessage["stopReason"]> = new Set(["error", "aborted", "context_overflow"]);

/**
 * The tool calls of the last assistant message on the path that have no result yet,
 * classified by the operation journal.
 */
function pendingToolCalls(nodes: readonly NodeEntry[]): RecoveryAction[] {
  let last = -1;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const e = nodes[i]!;
    if (e.type === "message" && e.message.role === "assistant") {
      last = i;
      break;
    }
  }
  if (last === -1) return [];
  const assistant = (nodes[last] as { message: AssistantMessage }).message;
  // A reply that failed or was aborted never has its calls run (replay leaves them out too):
  // nothing of it was interrupted, so reporting its calls would call a provider error a crash.
  if (FAILED.has(assistant.stopReason)) return [];
  const calls = assistant.content.filter((c): c is ToolCall => c.type === "toolCall");
  if (calls.length === 0) return [];

  const results = new Set<string>();
  const begins = new Map<string, OpBeginEntry>();
  const ends = new Map<string, OpEndEntry>();
  for (let i = last + 1; i < nodes.length; i++) {
    const e = nodes[i]!;
    if (e.type === "message" && e.message.role === "toolResult") results.add(e.message.toolCallId);
    else if (e.type === "op_begin") begins.set(e.toolCallId, e);
    else if (e.type === "op_end") ends.set(e.toolCallId, e);
  }

  const actions: RecoveryAction[] = [];
  for (const call of calls) {
    if (results.has(call.id)) continue;
    const begin = begins.get(call.id);
    const end = ends.get(call.id);
    if (!begin) actions.push({ kind: "never_ran", toolCallId: call.id, toolName: call.name });
    else if (!end) {
      actions.push({ kind: "unknown_outcome", toolCallId: call.id, toolName: call.name, args: begin.args });
    } else {
      actions.push({
        kind: "result_missing",
        toolCallId: call.id,
        toolName: call.name,
        outcome: end.outcome,
        ...(end.summary !== undefined ? { summary: end.summary } : {}),
      });
    }
  }
  return actions;
}

/** A cut-off partial as an aborted assistant message; half-streamed tool calls never ran and are dropped. */
function restoreInterrupted(checkpoint: CheckpointEntry): AssistantMessage {
  return {
    ...checkpoint.message,
    content: checkpoint.message.content.filter((c) => c.type !== "toolCall"),
    stopReason: "aborted",
    error: { type: "aborted", message: "Interrupted: Keel stopped while this reply was streaming." },
  };
}
