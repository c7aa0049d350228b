// A .gitignore-aware directory walk shared by Glob, Grep and LS: nested .gitignore files,
// the ancestors' up to the repository root, .git/info/exclude; .git and node_modules skipped.
import { type Dirent, existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
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
}

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

async function entryIsDir(
  entry: Dirent,
  path: string,
): Promise<{ dir: boolean; followable: boolean } | undefined> {
  if (entry.isDirectory()) return { dir: true, followable: true };
  if (!entry.isSymbolicLink()) return { dir: false, followable: false };
  // Symlinked directories are listed but not entered: they can loop or leave the tree.
  const target = await stat(path).catch(() => undefined);
  if (target === undefined) return undefined;
  return { dir: target.isDirectory(), followable: false };
}

/** Breadth-first, entries sorted by name within a directory, so output is deterministic. */
export async function* walk(root: string, options: WalkOptions, stats: WalkStats): AsyncGenerator<WalkEntry> {
  const queue: { dir: string; depth: number; levels: IgnoreLevel[] }[] = [
    { dir: root, depth: 0, levels: await ancestorLevels(root) },
  ];
  while (queue.length > 0) {
    if (options.signal?.aborted) return;
    const { dir, depth, levels: inherited } = queue.shift()!;
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
      const kind = await entryIsDir(entry, path);
      if (kind === undefined || isIgnored(levels, path, kind.dir)) continue;
      const rel = toPosix(relative(root, path));
      if (options.skip?.(rel, kind.dir)) continue;
      if (options.maxEntries !== undefined && stats.visited >= options.maxEntries) {
        stats.capped = true;
        return;
      }
      stats.visited++;
      yield { path, rel, dir: kind.dir, depth: depth + 1 };
      if (kind.dir && kind.followable) queue.push({ dir: path, depth: depth + 1, levels });
    }
  }
}

export const newWalkStats = (): WalkStats => ({ visited: 0, capped: false, unreadableDirs: 0 });
