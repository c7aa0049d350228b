// Path questions asked of the filesystem without failing: does it exist, where does it really lead.
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { resolve } from "node:path";

/** Exists as an entry (a dangling symlink counts: it is not followed). */
export function pathExists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** The names in a folder; none when it is missing or cannot be listed. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The realpath, or for a path that does not (fully) exist yet, the path made absolute. */
export function realpathOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
