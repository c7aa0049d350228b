// Remembers what the model last saw of each file, so Write and Edit refuse to clobber
// content the model never read or that changed underneath it since.
import { createHash } from "node:crypto";
import { err, ok, type Result } from "neverthrow";

export interface FileStamp {
  mtimeMs: number;
  size: number;
  /** sha256 of the bytes on disk. */
  hash: string;
}

export type FreshnessError =
  | { kind: "never_read" }
  | { kind: "changed"; previous: FileStamp; current: FileStamp };

export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function stampOf(bytes: Uint8Array, mtimeMs: number): FileStamp {
  return { mtimeMs, size: bytes.byteLength, hash: hashBytes(bytes) };
}

export class FileReadTracker {
  readonly #stamps = new Map<string, FileStamp>();

  /** `path` must be absolute; tools resolve it before calling. */
  record(path: string, stamp: FileStamp): void {
    this.#stamps.set(path, stamp);
  }

  get(path: string): FileStamp | undefined {
    return this.#stamps.get(path);
  }

  forget(path: string): void {
    this.#stamps.delete(path);
  }

  /**
   * The content hash decides: a `touch` or a checkout that restores the same bytes is not a
   * change, while an edit within the same mtime tick is.
   */
  check(path: string, current: FileStamp): Result<void, FreshnessError> {
    const previous = this.#stamps.get(path);
    if (previous === undefined) return err({ kind: "never_read" });
    if (previous.hash !== current.hash) return err({ kind: "changed", previous, current });
    if (previous.mtimeMs !== current.mtimeMs) this.#stamps.set(path, current);
    return ok(undefined);
  }
}

export function freshnessMessage(error: FreshnessError, shownPath: string, action: string): string {
  if (error.kind === "never_read") {
    return `Cannot ${action} ${shownPath}: it exists but has not been read in this session. Read it first, then retry.`;
  }
  const sizeNote =
    error.previous.size === error.current.size
      ? ""
      : ` (size ${error.previous.size} → ${error.current.size} bytes)`;
  return `Cannot ${action} ${shownPath}: it changed on disk since it was last read${sizeNote}. Read it again, then retry with its current content.`;
}
