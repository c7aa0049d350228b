// Rewind and tree moves with code: which prompt a rewind goes back before, and what putting the
// files back means for a move (the plan is folded from the journal; the file history writes it).
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { FileHistory } from "./file-history.js";
import { promptParts } from "./mentions.js";
import type { CodingAgentError, FileChanges, FilesRestored, RestoreChoice } from "./types.js";

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

/** What a rewind of `count` prompts, or a move to an entry, would put back in the files. */
export function fileChanges(
  session: Session,
  files: FileHistory | undefined,
  target: { rewind: number } | { entryId: string },
): Result<FileChanges, CodingAgentError> {
  if (!files) return ok({ files: [], unrestorable: [], notRestored: [] });
  let entryId: string | null;
  if ("rewind" in target) {
    const found = rewindTarget(session, target.rewind);
    if (found.isErr()) return err(found.error);
    entryId = found.value.parentId;
  } else entryId = target.entryId;
  const plan = session.restorePlan(entryId);
  if (plan.isErr()) return err({ type: "session", message: plan.error.message });
  return ok(files.describe(plan.value));
}

export interface MoveContext {
  session: Session;
  files?: FileHistory;
  /** The head moved: the agent's history and the extensions follow. */
  moved(): Promise<void>;
}

/**
 * Moves the conversation to `target` and/or puts the files back as Keel's tools left them there.
 * The files go first: a failed move then leaves the journal where it was.
 */
export async function moveTo(
  k: MoveContext,
  target: string | null,
  restore: RestoreChoice,
): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
  let restored: FilesRestored | undefined;
  if (restore !== "conversation") {
    if (!k.files) return err({ type: "session", message: "This session keeps no file history." });
    const plan = k.session.restorePlan(target);
    if (plan.isErr()) return err({ type: "session", message: plan.error.message });
    restored = k.files.restore(plan.value);
  }
  if (restore !== "code") {
    const moved = await k.session.branch(target);
    if (moved.isErr()) return err({ type: "session", message: moved.error.message });
    await k.moved();
  }
  return ok(restored ? { files: restored } : {});
}
