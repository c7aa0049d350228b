// What a session shows and lets a front end change: permission modes and rules, the tree and
// what a move restores, mention completions, the history replayed, how full the context is.
import type { Message } from "@keel/ai";
import type { MentionCompletion } from "@keel/extension-sdk";
import type { PermissionBehavior, RuleSource } from "../../permissions/types.js";

export type PermissionModeName = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** A permission rule in force and where it came from (`file` for rules read from config). */
export interface PermissionRuleInfo {
  rule: string;
  behavior: PermissionBehavior;
  source: RuleSource;
  file?: string;
}

/** Where a rule added from a UI is kept: a config file, or this session only. */
export type PermissionRuleScope = "user" | "project" | "projectLocal" | "session";

/** A rule to add (or, `remove`, take out), and where it is kept. */
export interface PermissionRuleEdit {
  rule: string;
  behavior: PermissionBehavior;
  scope: PermissionRuleScope;
  remove?: boolean;
}

/** What a rewind or tree move may restore: the conversation, the files Keel's tools changed, or both. */
export type RestoreChoice = "conversation" | "code" | "both";

/** The files a move would put back, before it happens (for a dialog to show). */
export interface FileChanges {
  /** Display paths; "delete": the file did not exist then and is removed. */
  files: { path: string; action: "restore" | "delete" }[];
  /** Changed by Keel but not kept (too large, unreadable): left as they are. */
  unrestorable: { path: string; reason: string }[];
  /** Calls on the branch left behind whose effects Keel cannot undo (Bash, extension tools). */
  notRestored: string[];
}

/** What a code restore did. */
export interface FilesRestored extends FileChanges {
  /** Files that could not be written back, with why. */
  failed: { path: string; reason: string }[];
}

export interface SessionTreeNode {
  id: string;
  parentId: string | null;
  type: string;
  /** One-line description (role + first words, label, …). */
  text: string;
  label?: string;
  onCurrentBranch: boolean;
  isHead: boolean;
  /** Journal bookkeeping (T1/T2, extension state, model changes, tool results): hidden by default. */
  internal: boolean;
  /** ISO 8601. */
  timestamp: string;
}

/** One completion of an extension's mention: `@<prefix>:<ref>`. */
export interface MentionCompletionInfo extends MentionCompletion {
  prefix: string;
  /** The extension that answered. */
  source: string;
}

/** One message of the head's context as a front end replays it (`CodingAgent.history()`). */
export type HistoryItem =
  /** Said in the conversation: prompts, answers, tool calls and results, the user's `!` commands. */
  | { kind: "conversation"; message: Message }
  /** What replaced earlier messages: a compaction's summary, or the summary of a branch left behind. */
  | { kind: "summary"; of: "compaction" | "branch"; text: string; message: Message }
  /** Left for the model by Keel (`source` "catalogs": a capability notice) or an extension (its id). */
  | { kind: "notice"; source: string; text: string; message: Message };

export interface ContextUsage {
  /** Estimated tokens the next request would carry. */
  tokens: number;
  contextWindow: number;
  percent: number;
}
