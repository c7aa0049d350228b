// The writer lock: `<file>.lock` holds {pid, hostname, started}. A live holder refuses a
// second writer; a holder whose process is gone on this host is stale and reclaimed, and so
// is a live process that started after the lock was written (its pid was reused).
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { err, ok, type Result } from "neverthrow";
import { errorCode, ioError } from "./errors.js";
import { processStartMs } from "./process-start.js";
import type { SessionError } from "./types.js";

export interface LockInfo {
  pid: number;
  hostname: string;
  started: string;
}

export interface HeldLock {
  path: string;
  /** Set when a stale lock was taken over. */
  reclaimed?: LockInfo;
  release(): void;
}

function readLock(path: string): { text: string; info: LockInfo | null } | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // Gone (released) or unreadable: either way there is no live holder we can name.
    return null;
  }
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === "number" && typeof v.hostname === "string" && typeof v.started === "string") {
      return { text, info: { pid: v.pid, hostname: v.hostname, started: v.started } };
    }
  } catch {}
  return { text, info: null };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(e) === "EPERM";
  }
}

/**
 * Start times are known to about a second (Linux counts in ticks from a boot time given in
 * whole seconds); a process that started more than this after the lock was written is not
 * the one that wrote it.
 */
const START_SLACK_MS = 2000;

/** A lock we cannot prove dead is live: on another host we cannot check the pid. */
function isStale(info: LockInfo | null): boolean {
  if (info === null) return true; // unreadable content: the lock is written whole, so it is not ours to honour
  if (info.hostname !== hostname()) return false;
  if (info.pid === process.pid) return false;
  if (!pidAlive(info.pid)) return true;
  // The pid is taken, but maybe by another program since (after a reboot, or pids wrapping).
  const written = Date.parse(info.started);
  const started = processStartMs(info.pid);
  return Number.isFinite(written) && started !== undefined && started > written + START_SLACK_MS;
}

export function acquireLock(sessionPath: string): Result<HeldLock, SessionError> {
  const lockPath = `${sessionPath}.lock`;
  const mine: LockInfo = { pid: process.pid, hostname: hostname(), started: new Date().toISOString() };
  const mineText = JSON.stringify(mine);
  // Written to a private file, then linked into place: the lock appears with its content
  // complete, and link fails if another writer got there first.
  const tmp = `${lockPath}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(tmp, mineText);
  } catch (e) {
    return err(ioError("write lock", tmp, e));
  }
  let reclaimed: LockInfo | undefined;
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(tmp, lockPath);
        const held: HeldLock = {
          path: lockPath,
          release: () => {
            const current = readLock(lockPath);
            try {
              if (current?.text === mineText) unlinkSync(lockPath);
            } catch {
              // Already gone: nothing to release.
            }
          },
        };
        if (reclaimed) held.reclaimed = reclaimed;
        return ok(held);
      } catch (e) {
        if (errorCode(e) !== "EEXIST") return err(ioError("create lock", lockPath, e));
      }
      const existing = readLock(lockPath);
      if (existing === null) continue; // released in between: try again
      if (!isStale(existing.info)) {
        const info = existing.info!;
        return err({
          type: "locked",
          path: sessionPath,
          pid: info.pid,
          hostname: info.hostname,
          started: info.started,
          message:
            info.pid === process.pid && info.hostname === hostname()
              ? `Session ${sessionPath} is already open in this process (pid ${info.pid}). Use that Session, or close it first.`
              : `Session ${sessionPath} is open in another Keel process (pid ${info.pid} on ${info.hostname}, since ${info.started}). Close it there first; meanwhile it can be opened read-only to look at it, or forked to go on in a copy.`,
        });
      }
      // Move the stale lock aside and check it is the one we judged: another process may
      // have reclaimed it and put its own live lock in place meanwhile.
      const aside = `${lockPath}.stale-${process.pid}`;
      try {
        renameSync(lockPath, aside);
      } catch (e) {
        if (errorCode(e) === "ENOENT") continue;
        return err(ioError("reclaim lock", lockPath, e));
      }
      const moved = readLock(aside);
      if (moved && moved.text !== existing.text) {
        try {
          linkSync(aside, lockPath);
        } catch {}
      } else if (existing.info) {
        reclaimed = existing.info;
      }
      unlinkSync(aside);
    }
    return err({
      type: "io",
      op: "acquire lock",
      path: lockPath,
      message: `Could not take the lock ${lockPath}: other processes keep changing it. Try again.`,
    });
  } finally {
    try {
      unlinkSync(tmp);
    } catch {}
  }
}
