// The journal's vocabulary: the header, every entry type, fold output and tagged errors.
// Everything here is plain JSON so it crosses process boundaries unchanged.
import type { AssistantMessage, Message, UserMessage } from "@keel/protocol";

/** The format version this code writes; a higher version in a header opens read-only. */
export const SESSION_FORMAT_VERSION = 1;

export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  cwd: string;
  /** ISO 8601. */
  created: string;
  /** Set on a fork: where the copied path came from. */
  parentSession?: { id: string; path: string; entryId: string | null };
  /** Set on a child agent's session: the session and tool call that started it. */
  spawnedBy?: { sessionId: string; path?: string; agentId: string; toolCallId?: string };
  /**
   * When and where the session began, as its system prompt says it: fixed for the session's life,
   * so a resume on another day (or machine) sends the same prompt and keeps the cached prefix.
   * Absent in sessions written before it existed: the date is then `created`'s.
   */
  environment?: SessionEnvironment;
}

/** The time- and host-dependent facts a session's system prompt holds. */
export interface SessionEnvironment {
  /** YYYY-MM-DD (UTC), the day the session began. */
  date: string;
  /** `process.platform process.arch` where it began. */
  platform: string;
}

/** Fields every entry carries. `timestamp` is ISO 8601. */
export interface EntryBase {
  id: string;
  parentId: string | null;
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: Message;
}

/** Per-extension state; the latest one on the branch wins. `state` must be JSON. */
export interface AppStateEntry extends EntryBase {
  type: "app_state";
  extensionId: string;
  state: unknown;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  /** First entry (on the path, before this one) whose message survives the compaction. */
  firstKeptEntryId: string | null;
  tokensBefore: number;
  reason: string;
}

/** Summary of the branch the head came back from, placed where the conversation resumes. */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string | null;
  summary: string;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
  /** The thinking level asked for ("off", "low", …); absent: the model's own default. */
  thinking?: string;
}

/** One told item: a tool name and a digest of what was said about it. */
export interface ToldCapability {
  name: string;
  digest: string;
}

/**
 * What the model was told about on-demand capabilities. `inventory` holds, for each source
 * it mentions, the complete list told after this notice (sources not mentioned keep their
 * earlier list; an empty list means nothing is told for that source any more). `message`
 * is the notice as appended to the context.
 */
export interface CapabilityNoticeEntry extends EntryBase {
  type: "capability_notice";
  source: string;
  inventory: Record<string, ToldCapability[]>;
  message: UserMessage;
}

/**
 * A message an extension left for the model (a background agent finished): part of the
 * context from here on, like any message, but not the user's.
 */
export interface NoticeEntry extends EntryBase {
  type: "notice";
  /** The extension that left it. */
  source: string;
  message: UserMessage;
  /**
   * The extension's name for what it delivers ("agent:a1"): a second notice with the same source
   * and key on the same branch is not journaled, so a delivery retried after a crash lands once.
   */
  key?: string;
}

/** How a child agent ended, as its parent's journal records it. */
export interface AgentRunOutcome {
  status: "completed" | "failed" | "aborted" | "budget" | "max_turns" | "interrupted";
  stopReason: string;
  /** The final text, bounded; the whole transcript is in the child's own journal. */
  text: string;
  turns: number;
  usage: AssistantMessage["usage"];
  durationMs: number;
  model: string;
  error?: { type: string; message: string };
}

/**
 * A child agent's life in its parent's journal: "start" when it is spawned, "end" when it ends.
 * Session-wide (children are facts of the session, whatever branch the head is on).
 */
export interface AgentRunEntry extends EntryBase {
  type: "agent_run";
  agentId: string;
  phase: "start" | "end";
  title: string;
  /** The child's session. */
  sessionId: string;
  sessionFile?: string;
  toolCallId?: string;
  outcome?: AgentRunOutcome;
}

/** A person's answer to an approval (the permission gate's or an extension's question). */
export interface ApprovalEntry extends EntryBase {
  type: "approval";
  source: "permission" | "extension";
  /** What was approved: a tool's permission identity, or an extension's subject. */
  subject: string;
  decision: "allow_once" | "allow_always" | "allow_exact" | "deny" | "unsupported" | "cancelled";
  extensionId?: string;
  agentId?: string;
  toolCallId?: string;
  /** The rule an "always" answer saved. */
  rule?: string;
  /** The user's words with a denial. */
  reason?: string;
}

/**
 * A file as it was at one moment, kept so a rewind can put it back: `blob` names its content in
 * the session folder's file store, null when the file did not exist. `skipped` says why no copy
 * was kept (too large, unreadable); such a file cannot be restored.
 */
export interface FileVersion {
  /** Absolute path. */
  path: string;
  blob: string | null;
  skipped?: string;
}

/** T1: written durably before a tool with side effects runs. */
export interface OpBeginEntry extends EntryBase {
  type: "op_begin";
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** The files the call changes, as they were before it ran (Keel's own file tools). */
  files?: FileVersion[];
}

/** T2: the outcome of the operation started by the matching op_begin. */
export interface OpEndEntry extends EntryBase {
  type: "op_end";
  toolCallId: string;
  outcome: "ok" | "error";
  summary?: string;
  /** The files the call changed, as it left them (set when it succeeded and its T1 listed files). */
  files?: FileVersion[];
}

/** Head moved without new content. Never itself the head: the head becomes `targetId`. */
export interface LeafEntry extends EntryBase {
  type: "leaf";
  targetId: string | null;
}

/** A label on an entry; an empty label removes it. Labels are session-wide, not per branch. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label: string;
}

/** Session metadata (the latest value of each field wins, session-wide). */
export interface InfoEntry extends EntryBase {
  type: "info";
  name?: string;
}

/** Partial assistant content while it streams; superseded once anything lands after it. */
export interface CheckpointEntry extends EntryBase {
  type: "checkpoint";
  message: AssistantMessage;
}

/** Entries that extend the branch: appending one makes it the head. */
export type NodeEntry =
  | MessageEntry
  | AppStateEntry
  | CompactionEntry
  | BranchSummaryEntry
  | ModelChangeEntry
  | CapabilityNoticeEntry
  | NoticeEntry
  | OpBeginEntry
  | OpEndEntry;

/** Entries about the tree rather than on it: they never become the head and nothing hangs off them. */
export type MetaEntry = LeafEntry | LabelEntry | InfoEntry | CheckpointEntry | AgentRunEntry | ApprovalEntry;

/** An entry of a type this version does not know (written by a newer Keel); folds skip it. */
export interface UnknownEntry extends EntryBase {
  type: string;
  unknown: true;
  raw: Record<string, unknown>;
}

export type KnownEntry = NodeEntry | MetaEntry;
export type SessionEntry = KnownEntry | UnknownEntry;
export type EntryType = KnownEntry["type"];

/** What a caller supplies to append: an entry minus the fields the journal assigns. */
export type NewEntry = DistributiveOmit<KnownEntry, "id" | "parentId" | "timestamp">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const NODE_TYPES: ReadonlySet<string> = new Set([
  "message",
  "app_state",
  "compaction",
  "branch_summary",
  "model_change",
  "capability_notice",
  "notice",
  "op_begin",
  "op_end",
]);
export const META_TYPES: ReadonlySet<string> = new Set([
  "leaf",
  "label",
  "info",
  "checkpoint",
  "agent_run",
  "approval",
]);

export function isUnknownEntry(entry: SessionEntry): entry is UnknownEntry {
  return (entry as UnknownEntry).unknown === true;
}

export function isNodeEntry(entry: SessionEntry): entry is NodeEntry {
  return !isUnknownEntry(entry) && NODE_TYPES.has(entry.type);
}

/** After a crash: what happened to work that was under way at the head. */
export type RecoveryAction =
  /** No T1: the tool never started; safe to run again. */
  | { kind: "never_ran"; toolCallId: string; toolName: string }
  /** T1 without T2: it may or may not have taken effect; verify before retrying. */
  | { kind: "unknown_outcome"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  /** T1 and T2 but no tool result message: it finished, the result was lost. */
  | {
      kind: "result_missing";
      toolCallId: string;
      toolName: string;
      outcome: "ok" | "error";
      summary?: string;
    }
  /** An assistant message was cut off mid-stream; its partial content is restored. */
  | { kind: "interrupted_message"; checkpointId: string; message: AssistantMessage };

/** Something inconsistent the fold noticed and worked around; reported, never silent. */
export type FoldWarning =
  | { type: "first_kept_not_found"; compactionId: string; firstKeptEntryId: string | null }
  | { type: "dangling_parent"; entryId: string; parentId: string };

export interface FoldedSession {
  headId: string | null;
  /** Node entry ids root → head (meta and unknown entries excluded). */
  path: string[];
  /** The model context: path messages with compaction applied, then any restored partial. */
  messages: Message[];
  /** Which entry produced each message (parallel to `messages`). */
  messageSources: string[];
  /** Latest app_state per extension on the path. */
  extensionStates: Record<string, unknown>;
  /** Keys of the keyed notices on the path (compacted ones too), by source, in journal order. */
  noticeKeys: Record<string, string[]>;
  /** What the model has been told about on-demand capabilities, per source, in the current context. */
  toldInventory: Record<string, ToldCapability[]>;
  /** Latest model_change on the path (with the thinking level it asked for, if any). */
  model: { provider: string; modelId: string; thinking?: string } | null;
  /** Session-wide labels by target entry id. */
  labels: Record<string, string>;
  /** Session-wide name (latest info entry). */
  name: string | null;
  /** Child agents by id, session-wide: spawned, and how each ended (absent while running). */
  agents: Record<string, FoldedAgent>;
  /** The last compaction on the path, if any. */
  lastCompactionId: string | null;
  recovery: RecoveryAction[];
  warnings: FoldWarning[];
}

export interface FoldedAgent {
  agentId: string;
  title: string;
  sessionId: string;
  sessionFile?: string;
  toolCallId?: string;
  startedAt: string;
  outcome?: AgentRunOutcome;
}

export type FsyncPolicy = "always" | "turn" | "never";

/** Expected failures, as JSON-safe tagged values. */
export type SessionError =
  | { type: "io"; op: string; path: string; code?: string; message: string }
  | { type: "locked"; path: string; pid: number; hostname: string; started: string; message: string }
  | { type: "read_only"; path: string; message: string }
  | { type: "corrupt"; path: string; line?: number; message: string }
  | { type: "unknown_entry"; entryId: string; message: string }
  | { type: "invalid"; message: string }
  | { type: "closed"; path: string; message: string };

/** Things opening a session did or found that the user should hear about once. */
export type OpenNotice =
  | { type: "torn_tail_repaired"; corruptPath: string; bytes: number; message: string }
  | { type: "torn_tail_ignored"; bytes: number; message: string }
  | { type: "corrupt_line"; line: number; message: string }
  /** A line written twice: the copy is skipped (it would otherwise move the head back). */
  | { type: "duplicate_line"; line: number; firstLine: number; entryId: string; message: string }
  | {
      type: "read_only";
      reason: "requested" | "newer_version" | "unknown_entry_types" | "damaged" | "history_missing";
      message: string;
    }
  /** An entry's parent is not in the file: the history before it is cut off. */
  | { type: "missing_parent"; entryId: string; parentId: string; message: string }
  | { type: "stale_lock_reclaimed"; pid: number; hostname: string; message: string };
