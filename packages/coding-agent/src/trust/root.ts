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
  return findEnclosingRoot(start, keelHome) ?? start;
}

/**
 * The nearest ancestor of `dir` (itself included) holding .git or .keel, or undefined when
 * `dir` belongs to no project. Used for folders above a project root: a nested repository
 * inside an untrusted one must not make the outer one's files look like nobody's.
 */
export function findEnclosingRoot(dir: string, keelHome: string = resolveKeelHome()): string | undefined {
  const home = realpathOrResolved(keelHome);
  for (let at = realpathOrResolved(dir); ; ) {
    if (pathExists(join(at, ".git"))) return at;
    const keelDir = join(at, ".keel");
    if (pathExists(keelDir) && realpathOrResolved(keelDir) !== home) return at;
    const parent = dirname(at);
    if (parent === at) return undefined;
    at = parent;
  }
}
