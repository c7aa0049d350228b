// The one append path to a session file: a single write per line on an O_APPEND descriptor,
// fdatasync calls coalesced so concurrent durability requests share one flush, and the
// truncation back to the last whole line that lets a writer go on after a failed write.
import { closeSync, fdatasync, ftruncateSync, openSync, writeSync } from "node:fs";
import { err, ok, type Result } from "neverthrow";
import { ioError } from "./errors.js";
import type { SessionError } from "./types.js";

export interface WriterStats {
  /** Lines written. */
  writes: number;
  /** Flushes to stable storage actually issued. */
  fsyncs: number;
  bytes: number;
  /** Writes and flushes that failed (disk full, I/O error): each one refused an append. */
  failures: number;
}

/**
 * The file-system calls the writer makes, in one place so tests can fail them (a full disk
 * without a full disk). Each has the signature of its `node:fs` namesake.
 */
export interface JournalFileSystem {
  writeSync(fd: number, buffer: Buffer, offset: number): number;
  fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  ftruncateSync(fd: number, length: number): void;
}

export const NODE_FILE_SYSTEM: JournalFileSystem = {
  writeSync: (fd, buffer, offset) => writeSync(fd, buffer, offset),
  fdatasync: (fd, callback) => fdatasync(fd, callback),
  ftruncateSync: (fd, length) => ftruncateSync(fd, length),
};

type SyncResult = Result<void, SessionError>;

export class JournalWriter {
  readonly stats: WriterStats = { writes: 0, fsyncs: 0, bytes: 0, failures: 0 };
  private fd: number | null;
  /** Bytes written since the last flush started. */
  private dirty = false;
  private inFlight: Promise<SyncResult> | null = null;
  private queued: Promise<SyncResult> | null = null;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly fs: JournalFileSystem,
  ) {
    this.fd = fd;
  }

  static open(path: string, fs: JournalFileSystem = NODE_FILE_SYSTEM): Result<JournalWriter, SessionError> {
    try {
      return ok(new JournalWriter(path, openSync(path, "a"), fs));
    } catch (e) {
      return err(ioError("open for append", path, e));
    }
  }

  /**
   * Writes one whole line and returns its size in bytes. On a regular file a write is never
   * short unless the disk is full.
   */
  write(line: string): Result<number, SessionError> {
    if (this.fd === null) return err({ type: "closed", path: this.path, message: `${this.path} is closed.` });
    const buf = Buffer.from(line, "utf8");
    try {
      let off = 0;
      while (off < buf.length) off += this.fs.writeSync(this.fd, buf, off);
    } catch (e) {
      this.stats.failures++;
      return err(ioError("append to", this.path, e));
    }
    this.stats.writes++;
    this.stats.bytes += buf.length;
    this.dirty = true;
    return ok(buf.length);
  }

  /**
   * Cuts the file back to `size` (the end of the last whole line) after a failed write left
   * part of a line behind, so the next write starts a clean line. Fails while the cause
   * lasts only if truncating itself fails; the next write then tells whether space is back.
   */
  truncate(size: number): Result<void, SessionError> {
    if (this.fd === null) return err({ type: "closed", path: this.path, message: `${this.path} is closed.` });
    try {
      this.fs.ftruncateSync(this.fd, size);
    } catch (e) {
      this.stats.failures++;
      return err(ioError("truncate", this.path, e));
    }
    this.dirty = true;
    return ok(undefined);
  }

  /** Resolves once everything written before the call is on stable storage. */
  sync(): Promise<SyncResult> {
    if (this.fd === null) return Promise.resolve(ok(undefined));
    if (!this.dirty) return this.inFlight ?? Promise.resolve(ok(undefined));
    if (!this.inFlight) return this.startFlush();
    // A flush is running but started before our writes: all later callers share the next one.
    this.queued ??= this.inFlight.then(() => {
      this.queued = null;
      // Someone may have started a flush in between; it covers our writes too.
      return this.dirty ? this.startFlush() : (this.inFlight ?? ok(undefined));
    });
    return this.queued;
  }

  private startFlush(): Promise<SyncResult> {
    const fd = this.fd;
    if (fd === null) return Promise.resolve(ok(undefined));
    this.dirty = false;
    this.stats.fsyncs++;
    const flight = new Promise<SyncResult>((resolve) => {
      this.fs.fdatasync(fd, (e) => resolve(e ? err(ioError("fsync", this.path, e)) : ok(undefined)));
    }).then((r) => {
      if (this.inFlight === flight) this.inFlight = null;
      if (r.isErr()) {
        // What the failed flush covered is not known to be on disk: the next sync retries it.
        this.stats.failures++;
        this.dirty = true;
      }
      return r;
    });
    this.inFlight = flight;
    return flight;
  }

  /** Flushes (unless `flush` is false) and closes the descriptor. */
  async close(flush: boolean): Promise<SyncResult> {
    if (this.fd === null) return ok(undefined);
    const flushed = flush ? await this.sync() : ok(undefined);
    if (this.inFlight) await this.inFlight;
    if (this.queued) await this.queued;
    const fd = this.fd;
    this.fd = null;
    try {
      if (fd !== null) closeSync(fd);
    } catch (e) {
      return err(ioError("close", this.path, e));
    }
    return flushed;
  }
}
