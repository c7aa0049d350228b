// The one atomic file write (config, trust store, Write/Edit): readers see the old bytes or the
// new ones, never a torn mix. Temp file in the same directory, fsync, rename over the target.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { errnoCode, errnoMessage } from "./errno.js";
import { realpathOrResolved } from "./paths.js";

export interface AtomicWriteError {
  kind: "write_failed";
  code: string | undefined;
  message: string;
}

export interface AtomicWriteOutcome {
  /** Where the bytes landed: the symlink's target when `path` was a symlink. */
  path: string;
  created: boolean;
  mtimeMs: number;
}

export interface AtomicWriteOptions {
  /** Mode of a file that does not exist yet (before the umask); an existing file keeps its own. */
  newFileMode?: number;
}

const DEFAULT_FILE_MODE = 0o666;

/**
 * Synchronous on purpose: config and trust writes happen inside synchronous `Result` APIs, and
 * one implementation is worth more than not blocking the loop for the one fsync of a tool write.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Result<AtomicWriteOutcome, AtomicWriteError> {
  let temp: string | undefined;
  try {
    // Renaming over a symlink would replace the link itself; write through to its target.
    const target = realpathOrResolved(path);
    const existing = statSync(target, { throwIfNoEntry: false });
    const dir = dirname(target);
    mkdirSync(dir, { recursive: true });
    temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const mode = existing ? existing.mode & 0o7777 : (options.newFileMode ?? DEFAULT_FILE_MODE);
    const fd = openSync(temp, "wx", mode);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // open() applied the umask; an existing file keeps exactly the mode it had.
    if (existing) chmodSync(temp, existing.mode & 0o7777);
    renameSync(temp, target);
    temp = undefined;
    const written = statSync(target);
    return ok({ path: target, created: existing === undefined, mtimeMs: written.mtimeMs });
  } catch (error) {
    if (temp !== undefined) rmSync(temp, { force: true });
    return err({ kind: "write_failed", code: errnoCode(error), message: errnoMessage(error) });
  }
}
