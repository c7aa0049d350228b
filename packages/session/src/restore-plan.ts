// Which files a move of the head should put back, from the file versions the operation journal
// keeps (T1: as a file was before Keel's tool changed it; T2: as the tool left it). Pure, like
// the fold: no I/O, no clock, no globals.
import { type JournalIndex, resolveHead } from "./fold.js";
import { type FileVersion, isNodeEntry, type NodeEntry, type OpBeginEntry } from "./types.js";

/** One file to put back: write `blob`'s content, or remove the file when `blob` is null. */
export interface FileRestore {
  path: string;
  blob: string | null;
}

export interface RestorePlan {
  files: FileRestore[];
  /** Files Keel's tools changed whose earlier content was not kept (too large, unreadable). */
  unrestorable: { path: string; reason: string }[];
  /**
   * Calls with side effects on the branch left behind that left no file versions (Bash,
   * extension tools): what they changed is not put back. Tool names, in journal order.
   */
  notRestored: string[];
}

function pathTo(index: JournalIndex, headId: string | null): NodeEntry[] {
  const chain: NodeEntry[] = [];
  for (let id = resolveHead(index, headId); id !== null; ) {
    const at = index.byId.get(id);
    if (at === undefined) break;
    const entry = index.entries[at]!;
    if (isNodeEntry(entry)) chain.push(entry);
    id = entry.parentId;
    if (chain.length > index.entries.length) throw new Error("restorePlan: parent links form a cycle");
  }
  return chain.reverse();
}

/**
 * The files to restore so that the working tree matches `toHead` as far as Keel's own file
 * tools shaped it, starting from `fromHead`. Below their common ancestor nothing changes; a
 * file changed on the branch being left goes back to how it was before the first such change,
 * unless the branch being entered changed it, in which case it takes the content that
 * branch's last successful change left. A rewind (`toHead` an ancestor of `fromHead`) only
 * undoes.
 */
export function restorePlan(
  index: JournalIndex,
  fromHead: string | null,
  toHead: string | null,
): RestorePlan {
  const from = pathTo(index, fromHead);
  const to = pathTo(index, toHead);
  let common = 0;
  while (common < from.length && common < to.length && from[common]!.id === to[common]!.id) common++;

  const desired = new Map<string, FileVersion>();
  const notRestored: string[] = [];
  // Leaving: the first version before a change is the file as it was at the common ancestor.
  for (const entry of from.slice(common)) {
    if (entry.type !== "op_begin") continue;
    if (!entry.files) {
      notRestored.push(entry.toolName);
      continue;
    }
    for (const file of entry.files) if (!desired.has(file.path)) desired.set(file.path, file);
  }
  // Entering: the version a successful change left, the last one winning.
  const begins = new Map<string, OpBeginEntry>();
  for (const entry of to.slice(common)) {
    if (entry.type === "op_begin") begins.set(entry.toolCallId, entry);
    if (entry.type !== "op_end" || entry.outcome !== "ok" || !entry.files) continue;
    if (!begins.has(entry.toolCallId)) continue;
    for (const file of entry.files) desired.set(file.path, file);
  }

  const files: FileRestore[] = [];
  const unrestorable: RestorePlan["unrestorable"] = [];
  for (const version of desired.values()) {
    if (version.skipped !== undefined) unrestorable.push({ path: version.path, reason: version.skipped });
    else files.push({ path: version.path, blob: version.blob });
  }
  return { files, unrestorable, notRestored };
}
