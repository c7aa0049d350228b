// Context files outside the root's own (sub/AGENTS.md, sub/deeper/CLAUDE.md below it, and
// those of folders above it that belong to no project): which are read depends on where keel
// starts, so trust approves them file by file. Trusting records each as it is then; starting
// keel reads those on its path, and each must match its approval, or the project counts as
// changed. Folders above the root inside another project are that project's to trust.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { readRegularFile } from "../fs/bounded-read.js";
import { pathExists } from "../fs/paths.js";
import { findEnclosingRoot } from "./root.js";

/** The names the context loader reads, in order. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** What of a context file reaches the model (the rest is cut off, with a notice). */
export const MAX_CONTEXT_BYTES = 64 * 1024;

/** Folders a project scan does not enter: tools' data, not the project's instructions. */
const SKIPPED_DIRS = new Set([".git", "node_modules", ".keel"]);
/** A scan of a huge tree stops here; folders past it are simply not approved yet. */
const MAX_SCANNED_DIRS = 20_000;

/**
 * What a context file amounts to for the loader: the digest of the bytes it would read, or
 * "refused" when it is not a regular file (a link to a device, a FIFO) and would not be read.
 */
export function contextDigest(path: string): string {
  const read = readRegularFile(path, MAX_CONTEXT_BYTES);
  if (!read.ok) return "refused";
  return `sha256:${createHash("sha256").update(read.bytes).digest("hex")}`;
}

function toRel(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

/** The folders strictly below `root` down to `cwd` (inclusive), or [] when cwd is not below it. */
export function foldersBelowRoot(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return [];
  const dirs: string[] = [];
  for (let dir = cwd; dir !== root; dir = dirname(dir)) dirs.unshift(dir);
  return dirs;
}

/**
 * The folders above `root` (a realpath) that belong to no project, outermost first, without
 * the Keel home: their context files are read for this project once it is trusted.
 */
export function foldersAboveRoot(root: string, keelHome: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    if (dir !== keelHome && findEnclosingRoot(dir, keelHome) === undefined) dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return dirs;
}

function addContextFiles(found: Record<string, string>, dir: string, key: (path: string) => string): void {
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(dir, name);
    if (pathExists(path)) found[key(path)] = contextDigest(path);
  }
}

/**
 * The context files read for the root's project when keel starts in `cwd` besides the root's
 * own: between the root and cwd (keyed root-relative) and above the root (keyed absolute).
 */
export function contextFilesOnPath(root: string, cwd: string, keelHome: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const dir of foldersAboveRoot(root, keelHome)) addContextFiles(found, dir, (path) => path);
  for (const dir of foldersBelowRoot(root, cwd)) addContextFiles(found, dir, (path) => toRel(root, path));
  return found;
}

/** Every context file below `root` now (bounded, not following folder links). */
export function scanContextFiles(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const queue = [root];
  let scanned = 0;
  while (queue.length > 0 && scanned < MAX_SCANNED_DIRS) {
    const dir = queue.shift()!;
    scanned++;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (dir !== root && (CONTEXT_FILE_NAMES as readonly string[]).includes(name)) {
        found[toRel(root, path)] = contextDigest(path);
        continue;
      }
      if (SKIPPED_DIRS.has(name)) continue;
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) queue.push(path);
    }
  }
  return found;
}

/** The first context file on the path root → cwd that differs from its approval, if any. */
export function unapprovedContextFile(
  root: string,
  cwd: string,
  keelHome: string,
  approved: Readonly<Record<string, string>>,
): string | undefined {
  const current = contextFilesOnPath(root, cwd, keelHome);
  return Object.keys(current).find((key) => approved[key] !== current[key]);
}
