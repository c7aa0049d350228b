// A server's log file: its stderr (stdio), what the server logged over MCP, and the connection's
// own events, under the extension's data dir. Writing never throws; reading gives the tail.
import { appendFile, closeSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";

export class ServerLog {
  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
  }

  write(line: string): void {
    appendFile(this.file, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 }, () => {});
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
