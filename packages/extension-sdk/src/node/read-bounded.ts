// Reads at most N bytes of a regular file, refusing anything else: a link to /dev/zero, a FIFO,
// a socket or a directory is never read (opening a FIFO could block; /dev/zero never ends).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { err, ok, type Result } from "neverthrow";
import { errnoFields } from "./errno.js";

export interface BoundedRead {
  /** The first `min(size, maxBytes)` bytes. */
  bytes: Buffer;
  /** The file is larger than `maxBytes`. */
  truncated: boolean;
  /** The file's whole size. */
  size: number;
}

export interface BoundedReadError {
  type: "unreadable" | "not_a_file";
  path: string;
  /** The errno code, for `unreadable` (`ENOENT`, `EACCES` …). */
  code?: string;
  message: string;
}

export function readFileBounded(path: string, maxBytes: number): Result<BoundedRead, BoundedReadError> {
  const unreadable = (error: unknown): Result<never, BoundedReadError> =>
    err({ type: "unreadable", path, ...errnoFields(error) });
  let fd: number;
  try {
    // Non-blocking: a FIFO put in place after any check still cannot hang the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return err({ type: "not_a_file", path, message: "not a regular file" });
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return ok({ bytes: buffer.subarray(0, read), truncated: stat.size > maxBytes, size: stat.size });
  } catch (error) {
    return unreadable(error);
  } finally {
    closeSync(fd);
  }
}
