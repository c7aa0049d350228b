// The one atomic file write: readers see the old bytes or the new ones, never a torn mix, and
// after it returns a crash keeps the new ones. Temp file beside the target, fsync, rename, fsync of
// the folder (the rename itself is only durable once the directory entry is).
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { errnoFields } from "./errno.js";

/**
 * Node's crypto is loaded on the first write, not with the module: `keel --version`, whose bin
 * carries this file for its code cache, would otherwise load all of node:crypto (a third of the
 * instructions of a `node -e 0`) to print one line.
 */
const randomHex = () => process.getBuiltinModule("node:crypto").randomBytes(4).toString("hex");

export interface AtomicWriteOptions {
  /**
   * The file's mode, whatever the old file had and whatever the umask: `0o600` for a file that
   * holds secrets. Without it an existing file keeps its mode and a new one gets `newFileMode`.
   */
  mode?: number;
  /** Mode of a file that does not exist yet, before the umask. Default `0o666`. */
  newFileMode?: number;
  /** Mode of the folders created on the way (`0o700` for a folder of secrets), before the umask. */
  dirMode?: number;
  /**
   * `false` for caches only: no fsync at all, so a crash may lose the new bytes (never tear
   * them). Default true.
   */
  durable?: boolean;
}

export interface AtomicWriteOutcome {
  /** Where the bytes landed: the symlink's target when `path` was a symlink. */
  path: string;
  created: boolean;
  mtimeMs: number;
}

export interface AtomicWriteError {
  type: "write_failed";
  path: string;
  /** The errno code (`EACCES`, `ENOSPC` …) when the system gave one. */
  code?: string;
  message: string;
}

const DEFAULT_FILE_MODE = 0o666;

function realpathOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path); // not there yet (or a dangling link): the path as written
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some systems (Windows) cannot open a folder; the file's own bytes are already on disk.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `data` to `path` atomically. Synchronous on purpose: config, trust and credential writes
 * happen inside synchronous APIs, and one implementation is worth more than not blocking the
 * loop for one fsync. A symlink is written through (to its target), never replaced.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Result<AtomicWriteOutcome, AtomicWriteError> {
  const durable = options.durable ?? true;
  let temp: string | undefined;
  try {
    const target = realpathOrResolved(path);
    const existing = statSync(target, { throwIfNoEntry: false });
    const dir = dirname(target);
    mkdirSync(dir, { recursive: true, ...(options.dirMode !== undefined ? { mode: options.dirMode } : {}) });
    temp = join(dir, `.${basename(target)}.${process.pid}.${randomHex()}.tmp`);
    const kept = existing ? existing.mode & 0o7777 : undefined;
    const fd = openSync(temp, "wx", options.mode ?? kept ?? options.newFileMode ?? DEFAULT_FILE_MODE);
    try {
      writeFileSync(fd, data);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // open() applied the umask: a forced mode, or the mode the old file had, is set exactly.
    const exact = options.mode ?? kept;
    if (exact !== undefined) chmodSync(temp, exact);
    renameSync(temp, target);
    temp = undefined;
    if (durable) fsyncDir(dir);
    return ok({ path: target, created: existing === undefined, mtimeMs: statSync(target).mtimeMs });
  } catch (error) {
    if (temp !== undefined) rmSync(temp, { force: true });
    return err({ type: "write_failed", path, ...errnoFields(error) });
  }
}
