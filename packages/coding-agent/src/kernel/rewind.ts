// Rewind and tree moves with code: which prompt a rewind goes back before, and what putting the
// files back means for a move (the plan is folded from the journal; the file history writes it).
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { FileHistory } from "./file-history.js";
import { promptParts } from "./mentions.js";
import type { CodingAgentError, FileChanges, FilesRestored } from "./types.js";

export interface RewindTarget {
  /** The prompt's entry: the head moves to its parent. */
  entryId: string;
  /** Where the head goes. */
  parentId: string | null;
  /** The prompt as the user typed it (attachments left out). */
  text: string;
}

/** The `count`-th most recent prompt on the branch (only the user's prompts count, not notices). */
export function rewindTarget(session: Session, count: number): Result<RewindTarget, CodingAgentError> {
  const folded = session.fold();
  const prompts: RewindTarget[] = [];
  folded.messages.forEach((m, i) => {
    const source = folded.messageSources[i]!;
    const entry = session.getEntry(source);
    if (m.role === "user" && entry?.type === "message")
      prompts.push({ entryId: source, parentId: entry.parentId, text: promptParts(m.content).text });
  });
  if (prompts.length === 0)
    return err({
      type: "session",
      message: "Nothing to rewind yet: no prompt has been sent in this session.",
    });
  const target = prompts[prompts.length - count];
  if (!target)
    return err({
      type: "session",
      message: `Only ${prompts.length} prompt${prompts.length === 1 ? "" : "s"} can be rewound here; /rewind ${prompts.length} goes back to the start.`,
    });
  return ok(target);
}

/** What moving the head to `target` would put back in the files. */
export function fileChanges(
  session: Session,
  files: FileHistory,
  target: string | null,
): Result<FileChanges, CodingAgentError> {
  const plan = session.restorePlan(target);
  if (plan.isErr()) return err({ type: "session", message: plan.error.message });
  return ok(files.describe(plan.value));
}

/** Puts the files back as they were at `target` (the head does not move here). */
export function restoreFiles(
  session: Session,
  files: FileHistory,
  target: string | null,
): Result<FilesRestored, CodingAgentError> {
  const plan = session.restorePlan(target);
  if (plan.isErr()) return err({ type: "session", message: plan.error.message });
  return ok(files.restore(plan.value));
}
