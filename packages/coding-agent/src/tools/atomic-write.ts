// Writes a file so readers see either the old bytes or the new ones, never a torn mix:
// temp file in the same directory, fsync, rename over the target.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ResultAsync } from "neverthrow";
import { describeError, errorCode } from "./shared.js";

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

const DEFAULT_FILE_MODE = 0o666;

async function writeAtomically(path: string, data: Uint8Array): Promise<AtomicWriteOutcome> {
  // Renaming over a symlink would replace the link itself; write through to its target.
  const target = await realpath(path).catch(() => path);
  const existing = await stat(target).catch(() => undefined);
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", existing ? existing.mode & 0o7777 : DEFAULT_FILE_MODE);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applied the umask; an existing file keeps exactly the mode it had.
    if (existing) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const written = await stat(target);
  return { path: target, created: existing === undefined, mtimeMs: written.mtimeMs };
}

export function writeFileAtomic(
  path: string,
  data: Uint8Array,
): ResultAsync<AtomicWriteOutcome, AtomicWriteError> {
  return ResultAsync.fromPromise(writeAtomically(path, data), (error) => ({
    kind: "write_failed" as const,
    code: errorCode(error),
    message: describeError(error),
  }));
}
