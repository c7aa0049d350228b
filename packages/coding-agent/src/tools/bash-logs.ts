// Where the Bash tool keeps full logs of long output, and the bounds that stop those logs from
// ever filling a disk: a cap per log, a budget for the folder (oldest go first), an age limit,
// and no log at all when the disk is nearly full.
import { mkdirSync, readdirSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LogLimits {
  /** A log stops growing here; the output's tail is still shown, and the note says so. */
  maxLogBytes: number;
  /** Logs in the folder together; the oldest are removed first when a new log starts. */
  maxTotalBytes: number;
  maxFiles: number;
  /** Logs older than this are removed when a new log starts. */
  maxAgeMs: number;
  /** No log is started while the disk has less free space than this. */
  minFreeBytes: number;
}

export const LOG_LIMITS: LogLimits = {
  maxLogBytes: 64 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxFiles: 200,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  minFreeBytes: 256 * 1024 * 1024,
};

/** `<tmpdir>/keel-bash-<uid>`: one folder per user, so pruning only ever meets one's own logs. */
export function defaultLogDir(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  return join(tmpdir(), uid === undefined ? "keel-bash" : `keel-bash-${uid}`);
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Makes the folder ready for one more log: creates it (private), removes logs past the age
 * limit, then the oldest until the new one fits the budget. Returns why no log should be
 * written, or undefined when one may.
 */
export function prepareLogDir(
  dir: string,
  limits: LogLimits,
  options: { now?: number; freeBytes?: (dir: string) => number } = {},
): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = options.now ?? Date.now();
  const logs = readdirSync(dir)
    .filter((name) => name.startsWith("bash-") && name.endsWith(".log"))
    .flatMap((name) => {
      try {
        const stat = statSync(join(dir, name));
        return [{ path: join(dir, name), size: stat.size, mtimeMs: stat.mtimeMs }];
      } catch {
        return []; // removed meanwhile
      }
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = logs.reduce((sum, log) => sum + log.size, 0);
  let count = logs.length;
  for (const log of logs) {
    const tooOld = now - log.mtimeMs > limits.maxAgeMs;
    // Room for one more log of the largest size it may reach.
    const overBudget = total + limits.maxLogBytes > limits.maxTotalBytes || count + 1 > limits.maxFiles;
    if (!tooOld && !overBudget) break;
    rmSync(log.path, { force: true });
    total -= log.size;
    count--;
  }
  if ((options.freeBytes ?? freeBytes)(dir) < limits.minFreeBytes)
    return "the disk is nearly full, so the full log was not saved";
  return undefined;
}
