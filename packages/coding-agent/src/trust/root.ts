// Finds the project root: the nearest ancestor holding .git or .keel (never the Keel home itself).
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { resolveKeelHome } from "../config/paths.js";

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Walks up from `cwd`. The `.keel` that is the Keel home (`~/.keel`) does not make `~` a project,
 * or every directory under home without a `.git` would share one trust entry. Returns a realpath.
 */
export function findProjectRoot(cwd: string, keelHome: string = resolveKeelHome()): string {
  const start = realOrResolved(cwd);
  const home = realOrResolved(keelHome);
  let dir = start;
  for (;;) {
    if (exists(join(dir, ".git"))) return dir;
    const keelDir = join(dir, ".keel");
    if (exists(keelDir) && realOrResolved(keelDir) !== home) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}
