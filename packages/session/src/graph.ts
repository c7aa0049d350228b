// The shape of a journal's links, checked once when it is opened: parent links (and the leaf
// entries' head moves) that form a cycle leave a history with no beginning, and a parent that is
// not in the file cuts off everything before the entry that names it. Pure: entries in, facts out.
import { isNodeEntry, isUnknownEntry, type SessionEntry } from "./types.js";

export interface GraphProblems {
  /** Entry ids that lead back to themselves, in link order (empty: none). */
  cycle: string[];
  /** Entries whose parent is not in the file, each with the parent it names. */
  missing: { entryId: string; parentId: string }[];
}

/**
 * Two kinds of link are followed: `parentId` (how the fold walks back to the root) and, for
 * entries that only move the head, where the head resolves (a leaf's target, another meta
 * entry's parent). A cycle in either would loop forever.
 */
export function checkLinks(entries: readonly SessionEntry[]): GraphProblems {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const missing: GraphProblems["missing"] = [];
  for (const e of entries)
    if (e.parentId !== null && !byId.has(e.parentId)) missing.push({ entryId: e.id, parentId: e.parentId });
  const parent = (e: SessionEntry) => e.parentId;
  const resolve = (e: SessionEntry) =>
    isUnknownEntry(e) || isNodeEntry(e) ? null : e.type === "leaf" ? e.targetId : e.parentId;
  const cycle = findCycle(entries, byId, parent) ?? findCycle(entries, byId, resolve) ?? [];
  return { cycle, missing };
}

/** The first cycle `next` forms, walking each entry once (white/grey/black marking). */
function findCycle(
  entries: readonly SessionEntry[],
  byId: ReadonlyMap<string, SessionEntry>,
  next: (e: SessionEntry) => string | null,
): string[] | undefined {
  const done = new Set<string>();
  for (const start of entries) {
    if (done.has(start.id)) continue;
    const path: string[] = [];
    const onPath = new Set<string>();
    for (let at: SessionEntry | undefined = start; at && !done.has(at.id); ) {
      if (onPath.has(at.id)) return [...path.slice(path.indexOf(at.id)), at.id];
      onPath.add(at.id);
      path.push(at.id);
      const to = next(at);
      at = to === null ? undefined : byId.get(to);
    }
    for (const id of path) done.add(id);
  }
  return undefined;
}

/**
 * Entries on the chain from `head` back to the root, and the first missing parent on it. Only
 * called once the links are known to have no cycle.
 */
export function chainFrom(
  entries: readonly SessionEntry[],
  head: string | null,
): { length: number; missingParent?: { entryId: string; parentId: string } } {
  const byId = new Map(entries.map((e) => [e.id, e]));
  let length = 0;
  for (let id = head; id !== null; ) {
    const e = byId.get(id);
    if (!e) return { length };
    length++;
    if (e.parentId !== null && !byId.has(e.parentId))
      return { length, missingParent: { entryId: e.id, parentId: e.parentId } };
    id = e.parentId;
  }
  return { length };
}
