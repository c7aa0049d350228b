// A server's log file: its stderr (stdio), what the server logged over MCP, and the connection's
// own events, under the extension's data dir. Writing never throws; reading gives the tail.
import { closeSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dirname } from "node:path";

export class ServerLog {
  private pending: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
  }

  /** Appends a line; lines land in order, and a failing disk never throws here. */
  write(line: string): void {
    const text = `${new Date().toISOString()} ${line}\n`;
    this.pending = this.pending.then(() => appendFile(this.file, text, { mode: 0o600 }).catch(() => {}));
  }

  /** Settles once every line written so far is on disk. */
  flushed(): Promise<void> {
    return this.pending;
  }

  /** The last `chars` characters of the log, for an error message that says what the server said. */
  tail(chars = 600): string {
    try {
      const size = statSync(this.file).size;
      const length = Math.min(size, chars);
      const buffer = Buffer.alloc(length);
      const fd = openSync(this.file, "r");
      try {
        readSync(fd, buffer, 0, length, size - length);
      } finally {
        closeSync(fd);
      }
      return buffer.toString("utf8").trim();
    } catch {
      return "";
    }
  }
}
