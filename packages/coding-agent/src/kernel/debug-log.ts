// The debug log: one line per message from extensions and the kernel, in the Keel home
// (logs/debug.log, rotated at a bound so it never fills the disk), and as `debug` events that
// `keel --debug` prints live.
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";

const MAX_BYTES = 5 * 1024 * 1024;

export function createDebugLog(home: string): (source: string, message: string) => void {
  const dir = join(home, "logs");
  const file = join(dir, "debug.log");
  let size: number | undefined;
  let broken = false;
  return (source, message) => {
    if (broken) return;
    const line = `${new Date().toISOString()} [${source}] ${message.replace(/\n/g, "\\n")}\n`;
    try {
      if (size === undefined) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        try {
          size = statSync(file).size;
        } catch {
          size = 0;
        }
      }
      if (size + line.length > MAX_BYTES) {
        renameSync(file, `${file}.1`);
        size = 0;
      }
      appendFileSync(file, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
    } catch {
      // A log that cannot be written must not stop anything; the event still carries the line.
      broken = true;
    }
  };
}
