// Finds the project root: the nearest ancestor holding .git or .keel (never the Keel home itself).
import { dirname, join } from "node:path";
import { resolveKeelHome } from "../config/paths.js";
import { pathExists, realpathOrResolved } from "../fs/paths.js";

/**
 * Walks up from `cwd`. The `.keel` that is the Keel home (`~/.keel`) does not make `~` a project,
 * or every directory under home without a `.git` would share one trust entry. Returns a realpath.
 */
export function findProjectRoot(cwd: string, keelHome: string = resolveKeelHome()): string {
  const start = realpathOrResolved(cwd);
  const home = realpathOrResolved(keelHome);
  let dir = start;
  for (;;) {
    if (pathExists(join(dir, ".git"))) return dir;
    const keelDir = join(dir, ".keel");
    if (pathExists(keelDir) && realpathOrResolved(keelDir) !== home) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}
