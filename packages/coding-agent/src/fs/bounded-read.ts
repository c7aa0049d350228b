// Reads at most N bytes of a regular file, refusing anything else: a link to /dev/zero, a FIFO,
// a socket or a directory is never read (opening a FIFO could block; /dev/zero never ends).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { errnoMessage } from "./errno.js";

export type BoundedRead =
  | { ok: true; bytes: Buffer; truncated: boolean; size: number }
  | { ok: false; reason: string };

export function readRegularFile(path: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    // Non-blocking: a FIFO put in place after any check still cannot hang the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    return { ok: false, reason: errnoMessage(error) };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, reason: "not a regular file" };
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { ok: true, bytes: buffer.subarray(0, read), truncated: stat.size > maxBytes, size: stat.size };
  } catch (error) {
    return { ok: false, reason: errnoMessage(error) };
  } finally {
    closeSync(fd);
  }
}
