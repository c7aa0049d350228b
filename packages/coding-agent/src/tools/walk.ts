// A .gitignore-aware directory walk shared by Glob, Grep and LS: nested .gitignore files,
// the ancestors' up to the repository root, .git/info/exclude; .git and node_modules skipped.
import { type Dirent, existsSync } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

export interface WalkOptions {
  signal?: AbortSignal;
  /** Descend into node_modules (e.g. when a glob names it). */
  includeNodeModules?: boolean;
  includeGit?: boolean;
  /** Stop after this many entries; `stats.capped` tells. */
  maxEntries?: number;
  /** Leaves an entry out (and, for a directory, everything in it). `rel` as in WalkEntry. */
  skip?: (rel: string, dir: boolean) => boolean;
  /**
   * Says which entries may be listed or read at all (permission rules, links that leave). Default:
   * a symlink is followed only when it leads inside the walk root or `within`.
   */
  guard?: WalkGuard;
  /** For the default guard: a second directory symlinks may lead into (the workspace). */
  within?: string;
}

/** One entry as a guard sees it: `real` is where it leads (the target, for a symlink). */
export interface GuardedEntry {
  path: string;
  real: string;
  symlink: boolean;
  dir: boolean;
}

export interface WalkGuard {
  /** Undefined admits the entry; a reason leaves it (and all under it) out, and is reported. */
  admit(entry: GuardedEntry): string | undefined;
}

export interface WalkEntry {
  path: string;
  /** Relative to the walk root, with `/` separators. */
  rel: string;
  dir: boolean;
  depth: number;
}

export interface WalkStats {
  visited: number;
  capped: boolean;
  unreadableDirs: number;
  /** Entries the guard left out (the first few, with why), and how many in all. */
  leftOut: { rel: string; reason: string }[];
  leftOutCount: number;
}

const LEFT_OUT_KEPT = 5;

interface IgnoreLevel {
  base: string;
  rules: Ignore;
}

const toPosix = (path: string) => (sep === "/" ? path : path.split(sep).join("/"));

export function isIgnored(levels: readonly IgnoreLevel[], path: string, dir: boolean): boolean {
  // The deepest .gitignore speaks first; a negation there re-includes what a parent excluded.
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const rel = toPosix(relative(level.base, path));
    if (rel === "" || rel.startsWith("..")) continue;
    const verdict = level.rules.test(dir ? `${rel}/` : rel);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function loadIgnoreFile(file: string, base: string): Promise<IgnoreLevel | undefined> {
  try {
    return { base, rules: ignore().add(await readFile(file, "utf8")) };
  } catch {
    return undefined; // absent or unreadable: no rules from it
  }
}

function findRepoRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Rules that apply above `root`. Dropped when they exclude `root` itself: it was asked for by name. */
async function ancestorLevels(root: string): Promise<IgnoreLevel[]> {
  const repo = findRepoRoot(root);
  if (repo === undefined || repo === root) {
    const exclude =
      repo === undefined ? undefined : await loadIgnoreFile(join(repo, ".git/info/exclude"), repo);
    return exclude === undefined ? [] : [exclude];
  }
  const levels: IgnoreLevel[] = [];
  const exclude = await loadIgnoreFile(join(repo, ".git/info/exclude"), repo);
  if (exclude !== undefined) levels.push(exclude);
  const chain: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === repo) break;
  }
  for (const dir of chain) {
    const level = await loadIgnoreFile(join(dir, ".gitignore"), dir);
    if (level !== undefined) levels.push(level);
  }
  return isIgnored(levels, root, true) ? [] : levels;
}

/** `realDir` undefined: the directory is its own real path (the walk never enters a symlink). */
async function entryKind(
  entry: Dirent,
  path: string,
  realDir: string | undefined,
): Promise<{ dir: boolean; followable: boolean; real: string } | undefined> {
  const own = realDir === undefined ? path : join(realDir, entry.name);
  if (entry.isDirectory()) return { dir: true, followable: true, real: own };
  if (!entry.isSymbolicLink()) return { dir: false, followable: false, real: own };
  // Symlinked directories are listed but not entered: they can loop or leave the tree.
  const [target, real] = await Promise.all([
    stat(path).catch(() => undefined),
    realpath(path).catch(() => undefined),
  ]);
  if (target === undefined || real === undefined) return undefined;
  return { dir: target.isDirectory(), followable: false, real };
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Without permission rules: a link may lead anywhere inside the walk root or `within`, not out. */
function containedGuard(realRoot: string, within: string | undefined): WalkGuard {
  return {
    admit: (e) =>
      !e.symlink || inside(e.real, realRoot) || (within !== undefined && inside(e.real, within))
        ? undefined
        : `a symbolic link to ${e.real}, outside the searched directory`,
  };
}

/** Breadth-first, entries sorted by name within a directory, so output is deterministic. */
export async function* walk(root: string, options: WalkOptions, stats: WalkStats): AsyncGenerator<WalkEntry> {
  const realRoot = await realpath(root).catch(() => root);
  const guard = options.guard ?? containedGuard(realRoot, options.within);
  const queue: { dir: string; real: string | undefined; depth: number; levels: IgnoreLevel[] }[] = [
    {
      dir: root,
      real: realRoot === root ? undefined : realRoot,
      depth: 0,
      levels: await ancestorLevels(root),
    },
  ];
  while (queue.length > 0) {
    if (options.signal?.aborted) return;
    const { dir, real: realDir, depth, levels: inherited } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      stats.unreadableDirs++;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let levels = inherited;
    if (entries.some((e) => e.name === ".gitignore" && !e.isDirectory())) {
      const own = await loadIgnoreFile(join(dir, ".gitignore"), dir);
      if (own !== undefined) levels = [...inherited, own];
    }
    for (const entry of entries) {
      if (entry.name === ".git" && !options.includeGit) continue;
      if (entry.name === "node_modules" && !options.includeNodeModules) continue;
      const path = join(dir, entry.name);
      const kind = await entryKind(entry, path, realDir);
      if (kind === undefined || isIgnored(levels, path, kind.dir)) continue;
      const rel = toPosix(relative(root, path));
      if (options.skip?.(rel, kind.dir)) continue;
      const refused = guard.admit({ path, real: kind.real, symlink: entry.isSymbolicLink(), dir: kind.dir });
      if (refused !== undefined) {
        stats.leftOutCount++;
        if (stats.leftOut.length < LEFT_OUT_KEPT) stats.leftOut.push({ rel, reason: refused });
        continue;
      }
      if (options.maxEntries !== undefined && stats.visited >= options.maxEntries) {
        stats.capped = true;
        return;
      }
      stats.visited++;
      yield { path, rel, dir: kind.dir, depth: depth + 1 };
      if (kind.dir && kind.followable)
        queue.push({
          dir: path,
          real: realDir === undefined ? undefined : kind.real,
          depth: depth + 1,
          levels,
        });
    }
  }
}

export const newWalkStats = (): WalkStats => ({
  visited: 0,
  capped: false,
  unreadableDirs: 0,
  leftOut: [],
  leftOutCount: 0,
});

/** The line a tool appends when its walk left entries out, or "". */
export function leftOutNote(stats: WalkStats): string {
  if (stats.leftOutCount === 0) return "";
  const shown = stats.leftOut.map((e) => `${e.rel} (${e.reason})`).join("; ");
  const more =
    stats.leftOutCount > stats.leftOut.length
      ? `; and ${stats.leftOutCount - stats.leftOut.length} more`
      : "";
  return `\n\n[Left out ${stats.leftOutCount} ${stats.leftOutCount === 1 ? "entry" : "entries"} it may not read: ${shown}${more}.]`;
}
