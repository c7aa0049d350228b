// The process table (/proc on Linux, `ps` elsewhere when asked) and signals that cannot reach
// the wrong process: an entry remembers when its process started, and a pid the system has since
// given to a later process is no longer that entry, so it is neither counted alive nor signalled.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Its process group. */
  pgid: number;
  /** Exited but not reaped: already dead (an init that never reaps would otherwise keep it "alive"). */
  zombie: boolean;
  /**
   * When it started, in clock ticks since boot (/proc). Undefined where the system does not say
   * (the `ps` table): there the pid alone identifies the process.
   */
  start?: number;
}

/** One process's entry from /proc, or undefined once it is gone (or without /proc). */
export function processEntry(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parens: the fixed fields resume after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[19]);
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    zombie: fields[0] === "Z",
    ...(Number.isFinite(start) ? { start } : {}),
  };
}

function procTable(): ProcessEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const table: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = processEntry(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

function psTable(): ProcessEntry[] | undefined {
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat="], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    });
    const table: ProcessEntry[] = [];
    for (const line of out.split("\n")) {
      const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
      const numbers = [pid, ppid, pgid].map(Number);
      if (state === undefined || !numbers.every(Number.isFinite)) continue;
      table.push({ pid: numbers[0]!, ppid: numbers[1]!, pgid: numbers[2]!, zombie: state.startsWith("Z") });
    }
    return table;
  } catch {
    return undefined;
  }
}

export interface ProcessTableOptions {
  /**
   * Where there is no /proc (macOS), ask `ps` (one child process per call). Off by default: a
   * caller polling the table would start one every few milliseconds.
   */
  portable?: boolean;
}

/** Every process now, or undefined where the system cannot be read. */
export function processTable(options: ProcessTableOptions = {}): ProcessEntry[] | undefined {
  const table = procTable();
  if (table !== undefined || !options.portable || process.platform === "win32") return table;
  return psTable();
}

/**
 * The live descendants of `root` in `table`, parents first. Only a live tree can be walked: once a
 * parent exits its children are re-parented, so read it before signalling anything.
 */
export function descendants(root: number, table: readonly ProcessEntry[]): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const p of table) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found: ProcessEntry[] = [];
  const queue = [root];
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (child.zombie) continue;
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

function signalProbe(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/**
 * True while the process `entry` describes runs: its pid is live, not a zombie, and (where start
 * times are known) started when the entry says. A pid reused by a later process is not it.
 */
export function stillRunning(entry: Pick<ProcessEntry, "pid" | "start">): boolean {
  const now = processEntry(entry.pid);
  if (now === undefined) return process.platform === "linux" ? false : signalProbe(entry.pid);
  if (now.zombie) return false;
  return entry.start === undefined || now.start === undefined || now.start === entry.start;
}

/** Signals each entry that is still the process it describes; returns how many were signalled. */
export function signalProcesses(
  entries: readonly Pick<ProcessEntry, "pid" | "start">[],
  signal: NodeJS.Signals,
): number {
  let sent = 0;
  for (const entry of entries) {
    if (!stillRunning(entry)) continue;
    try {
      process.kill(entry.pid, signal);
      sent++;
    } catch {
      // exited between the check and the signal
    }
  }
  return sent;
}
