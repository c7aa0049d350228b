// File access inside one skill folder, for the Skill tool: a bounded listing of its files and
// reads confined to the folder by realpath (no `..`, no absolute paths, no symlink out).
import type { Dirent } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { err, ok, type Result } from "neverthrow";

export const MAX_LISTED_FILES = 200;
const MAX_LIST_DEPTH = 4;
/** What one read returns at most; the rest is said to be there, with the file's absolute path. */
export const MAX_READ_CHARS = 60_000;

export type SkillFileError =
  | { type: "outside"; path: string; message: string }
  | { type: "not_found"; path: string; message: string }
  | { type: "not_a_file"; path: string; message: string }
  | { type: "unreadable"; path: string; message: string };

export interface SkillFileListing {
  files: string[];
  /** More files exist than were listed. */
  truncated: boolean;
}

/** Relative paths (with `/`) of the files in a skill folder, SKILL.md excluded, bounded. */
export async function listSkillFiles(dir: string, limit = MAX_LISTED_FILES): Promise<SkillFileListing> {
  const files: string[] = [];
  let truncated = false;
  const walk = async (rel: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      // Symlinked folders are not walked: what they point to may be outside the skill.
      if (e.isDirectory()) {
        if (depth < MAX_LIST_DEPTH) await walk(path, depth + 1);
        continue;
      }
      if (path === "SKILL.md") continue;
      if (files.length >= limit) {
        truncated = true;
        return;
      }
      files.push(path);
    }
  };
  await walk("", 0);
  return { files, truncated };
}

function code(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/** The realpath of `path` inside `dir`, or why it is refused. */
export async function resolveInside(dir: string, path: string): Promise<Result<string, SkillFileError>> {
  const outside = (why: string) =>
    err<string, SkillFileError>({
      type: "outside",
      path,
      message: `"${path}" is refused: ${why}; give a path relative to the skill folder, inside it`,
    });
  if (path.trim() === "" || path.includes("\0")) return outside("not a file name");
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) return outside("absolute paths are not read");
  const parts = path.split(/[\\/]+/);
  if (parts.includes("..")) return outside("`..` leaves the skill folder");
  let base: string;
  try {
    base = await realpath(dir);
  } catch (e) {
    return err({ type: "unreadable", path, message: `the skill folder is gone: ${(e as Error).message}` });
  }
  let real: string;
  try {
    real = await realpath(join(base, normalize(path)));
  } catch (e) {
    if (code(e) === "ENOENT" || code(e) === "ENOTDIR")
      return err({ type: "not_found", path, message: `"${path}" does not exist in the skill folder` });
    return err({ type: "unreadable", path, message: `cannot read "${path}": ${(e as Error).message}` });
  }
  const rel = relative(base, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
    return rel === ""
      ? err({ type: "not_a_file", path, message: `"${path}" is the skill folder itself; name a file in it` })
      : outside("it is a symlink to a place outside the skill folder");
  return ok(real);
}

export type SkillFileContent =
  | { kind: "text"; path: string; absolute: string; text: string; size: number; truncated: boolean }
  | { kind: "binary"; path: string; absolute: string; size: number };

/** Reads a file of the skill folder: text up to `maxChars`, binary files described, not dumped. */
export async function readSkillFile(
  dir: string,
  path: string,
  maxChars = MAX_READ_CHARS,
): Promise<Result<SkillFileContent, SkillFileError>> {
  const resolved = await resolveInside(dir, path);
  if (resolved.isErr()) return err(resolved.error);
  const absolute = resolved.value;
  try {
    const st = await stat(absolute);
    if (!st.isFile())
      return err({
        type: "not_a_file",
        path,
        message: st.isDirectory()
          ? `"${path}" is a folder; the file listing shows what is in it`
          : `"${path}" is not a regular file`,
      });
    // UTF-8 takes at most 4 bytes a character: reading that much is enough for maxChars.
    const want = Math.min(st.size, maxChars * 4);
    const handle = await open(absolute, "r");
    let bytes: Buffer;
    try {
      bytes = Buffer.alloc(want);
      const { bytesRead } = await handle.read(bytes, 0, want, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    if (bytes.subarray(0, 8192).includes(0)) return ok({ kind: "binary", path, absolute, size: st.size });
    const decoded = bytes.toString("utf8");
    const truncated = decoded.length > maxChars || st.size > bytes.length;
    return ok({
      kind: "text",
      path,
      absolute,
      text: decoded.length > maxChars ? decoded.slice(0, maxChars) : decoded,
      size: st.size,
      truncated,
    });
  } catch (e) {
    return err({ type: "unreadable", path, message: `cannot read "${path}": ${(e as Error).message}` });
  }
}
