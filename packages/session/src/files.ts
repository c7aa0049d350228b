// File-level steps around a session: naming, atomic creation of a new file, and moving a
// torn tail aside before truncating to the last good line.
import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { encodeLine } from "./codec.js";
import { ioError } from "./errors.js";
import type { SessionEntry, SessionError, SessionHeader } from "./types.js";

/** `2025-01-31T09-15-00-000Z_<id>.jsonl`: names sort by creation time. */
export function sessionFileName(created: string, id: string): string {
  return `${created.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

function fsyncDir(dir: string): void {
  // Makes the new directory entry durable; some platforms refuse to open directories.
  let fd: number | null = null;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Best effort: the data itself was already flushed.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function writeWhole(path: string, data: Buffer, flag: string, sync = true): void {
  const fd = openSync(path, flag);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off);
    if (sync) fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes header + entries to a temporary file and renames it into place, so the session
 * appears complete or not at all. Returns the file size.
 */
export function writeNewSessionFile(
  path: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
  sync = true,
): Result<number, SessionError> {
  const data = Buffer.from(encodeLine(header) + entries.map(encodeLine).join(""), "utf8");
  const tmp = join(dirname(path), `.${basename(path)}.tmp`);
  try {
    writeWhole(tmp, data, "wx", sync);
    renameSync(tmp, path);
  } catch (e) {
    return err(ioError("create session file", path, e));
  }
  if (sync) fsyncDir(dirname(path));
  return ok(data.length);
}

/** Copies the bytes past `goodEnd` to `<file>.corrupt-<timestamp>`, then truncates the file there. */
export function moveTornTailAside(
  path: string,
  buf: Buffer,
  goodEnd: number,
  stamp: string,
): Result<string, SessionError> {
  const corruptPath = `${path}.corrupt-${stamp.replace(/[:.]/g, "-")}`;
  try {
    // "wx" never overwrites an earlier repair's evidence; a second repair in the same ms is
    // a different file thanks to the counter.
    let target = corruptPath;
    for (let n = 1; ; n++) {
      try {
        writeWhole(target, buf.subarray(goodEnd), "wx");
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST" || n > 100) throw e;
        target = `${corruptPath}-${n}`;
      }
    }
    const fd = openSync(path, "r+");
    try {
      // Truncate only after the evidence is durable: a crash in between loses nothing.
      ftruncateSync(fd, goodEnd);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    fsyncDir(dirname(path));
    return ok(target);
  } catch (e) {
    return err(ioError("repair torn tail of", path, e));
  }
}
