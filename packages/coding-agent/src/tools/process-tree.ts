// Ends a command's whole process tree: its process group (the shell ran detached, so it leads
// one), descendants that moved to another group or session, and on Linux every process that
// carries the command's marker variable — which finds `setsid` and double-fork escapes even
// after they were re-parented to init. Live trees are registered so an exiting keel can end them.
import { randomBytes } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import {
  descendants,
  type ProcessEntry,
  processEntry,
  processTable,
  signalProcesses,
} from "@keel/extension-sdk/node";
import { errnoCode } from "../fs/errno.js";

/**
 * Why a marker variable rather than a cgroup or a subreaper: writable cgroups are delegated to
 * users only under a systemd user session (not in containers or CI), and PR_SET_CHILD_SUBREAPER
 * is a prctl Node cannot make without a native addon. An environment variable is inherited
 * through fork, exec, setsid, nohup and daemonising alike, and /proc/<pid>/environ shows it
 * for the user's own processes. Its one gap is a program that clears its environment itself
 * (`env -i`) and leaves the tree before the shell exits; macOS has no /proc, so there the
 * process group and the live descendants are all that is found.
 */
const MARKER_PREFIX = "KEEL_TREE_";

export interface CommandTree {
  /** The shell's pid, which is also its process group id. */
  pgid: number;
  /** Set in the command's environment as `<marker>=1`. */
  marker: string;
  /** The shell's start time in ticks since boot, when /proc has it: older processes are skipped. */
  start?: number;
}

let counter = 0;

/** A marker variable name unique to one command (and to this process, for nested keels). */
export function newTreeMarker(): string {
  counter++;
  return `${MARKER_PREFIX}${process.pid}_${counter}_${randomBytes(4).toString("hex")}`;
}

function signalProbe(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

/** The start time (ticks since boot) of `pid`, or undefined without /proc. */
export function startTicks(pid: number): number | undefined {
  return processEntry(pid)?.start;
}

/**
 * True while a live process of the group led by `pgid` exists. Zombies do not count: they are
 * already dead, and an init that never reaps (some containers) would otherwise keep them "alive".
 */
export function groupAlive(pgid: number): boolean {
  const table = processTable();
  if (table === undefined) return signalProbe(-pgid);
  return table.some((p) => p.pgid === pgid && !p.zombie);
}

export function pidAlive(pid: number): boolean {
  const table = processTable();
  if (table === undefined) return signalProbe(pid);
  return table.some((p) => p.pid === pid && !p.zombie);
}

/** Live processes carrying the tree's marker, wherever they went (Linux; [] elsewhere). */
export function markedPids(tree: CommandTree, table: ProcessEntry[] | undefined = processTable()): number[] {
  if (table === undefined) return [];
  const needle = Buffer.from(`\0${tree.marker}=`);
  const found: number[] = [];
  for (const p of table) {
    if (p.zombie || p.pid === process.pid) continue;
    // Started before the command: cannot have inherited its environment.
    if (tree.start !== undefined && p.start !== undefined && p.start < tree.start) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${p.pid}/environ`);
    } catch {
      continue; // gone, or another user's (then it cannot carry our marker either)
    }
    // The first variable has no NUL before it.
    if (environ.indexOf(needle) !== -1 || environ.subarray(0, needle.length - 1).equals(needle.subarray(1)))
      found.push(p.pid);
  }
  return found;
}

type Member = Pick<ProcessEntry, "pid" | "start">;
const sameProcess = (a: Member, b: Member) => a.pid === b.pid && a.start === b.start;

/**
 * Everything of the tree that is still alive: group members, descendants, marked processes. Each
 * member keeps its start time, so a pid reused by an unrelated process after it exited is not signalled.
 */
function members(
  tree: CommandTree,
  known: readonly Member[] = [],
  table: ProcessEntry[] | undefined = processTable(),
): { entries: Member[]; group: boolean } {
  if (table === undefined) {
    return { entries: known.filter((p) => signalProbe(p.pid)), group: signalProbe(-tree.pgid) };
  }
  const live = table.filter((p) => !p.zombie);
  const byPid = new Map(live.map((p) => [p.pid, p]));
  const marked = new Set(markedPids(tree, table));
  const found: Member[] = [];
  const add = (p: Member | undefined) => {
    if (p && !found.some((f) => f.pid === p.pid)) found.push(p);
  };
  for (const p of known) {
    const now = byPid.get(p.pid);
    if (now && sameProcess(now, p)) add(now);
  }
  for (const p of descendants(tree.pgid, table)) add(p);
  for (const pid of marked) add(byPid.get(pid));
  const group = live.some((p) => p.pgid === tree.pgid);
  return { entries: found, group };
}

/**
 * True while any process of the tree is alive (the shell's group or anything marked). Processes
 * running `launcher` (the sandbox's own binary, when the command ran inside one) do not count:
 * once the shell has exited they are the sandbox tearing itself down, not the command's.
 */
export function treeAlive(tree: CommandTree, launcher?: string): boolean {
  if (launcher === undefined) {
    const { entries, group } = members(tree);
    return group || entries.length > 0;
  }
  // One read of the table serves both questions: on a busy machine each read is most of the cost.
  const table = processTable();
  if (table === undefined) return treeAlive(tree);
  const pids = members(tree, [], table).entries.map((p) => p.pid);
  const grouped = table.filter((p) => p.pgid === tree.pgid && !p.zombie).map((p) => p.pid);
  return [...new Set([...pids, ...grouped])].some((pid) => {
    const exe = executable(pid);
    return exe !== undefined && exe !== launcher; // undefined: it exited meanwhile
  });
}

/** The program `pid` runs, or undefined once it is gone or not ours to read. */
function executable(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

function signalAll(pgid: number, entries: readonly Member[], signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone
  }
  signalProcesses(entries, signal);
}

const POLL_MS = 25;
const REAP_WAIT_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL after `graceMs` to whatever is still alive; resolves once all are gone (bounded). */
export async function killTree(tree: CommandTree, graceMs: number): Promise<void> {
  const known = members(tree).entries;
  const anyAlive = () => {
    const now = members(tree, known);
    for (const p of now.entries) if (!known.some((k) => sameProcess(k, p))) known.push(p);
    return now.group || now.entries.length > 0;
  };
  signalAll(tree.pgid, known, "SIGTERM");
  for (let waited = 0; waited < graceMs && anyAlive(); waited += POLL_MS) await sleep(POLL_MS);
  if (!anyAlive()) return;
  signalAll(tree.pgid, known, "SIGKILL");
  // SIGKILL cannot be caught; this only waits for the kernel to finish them off.
  for (let waited = 0; waited < REAP_WAIT_MS && anyAlive(); waited += POLL_MS) await sleep(POLL_MS);
}

/** A running command's deadline and abort signal, each of which kills its tree. */
export interface TreeWatch {
  /** Kills the tree; later calls wait for the same kill. Nothing to kill without a tree. */
  terminate(): Promise<void>;
  /** A kill has begun (the deadline, the abort, or terminate). */
  readonly killing: boolean;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Ends the deadline and the abort listener, once the command's own process has exited. */
  stop(): void;
}

export function watchTree(
  tree: CommandTree | undefined,
  options: { graceMs: number; timeoutMs: number; signal?: AbortSignal | undefined },
): TreeWatch {
  let killing: Promise<void> | undefined;
  let timedOut = false;
  let aborted = false;
  const terminate = () => {
    if (tree) killing ??= killTree(tree, options.graceMs);
    return killing ?? Promise.resolve();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    void terminate();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void terminate();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    terminate,
    get killing() {
      return killing !== undefined;
    },
    get timedOut() {
      return timedOut;
    },
    get aborted() {
      return aborted;
    },
    stop() {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Trees whose command is still running or being cleaned up, in this process. */
const live = new Set<CommandTree>();

export function registerTree(tree: CommandTree): () => void {
  live.add(tree);
  return () => live.delete(tree);
}

/**
 * Kills (SIGKILL, synchronously) every process of every command tree this process still has,
 * for exits that cannot wait for a graceful end: a signal, a run that can never finish.
 * Returns how many processes were signalled.
 */
export function killAllCommandTrees(): number {
  let signalled = 0;
  for (const tree of live) {
    const { entries, group } = members(tree);
    signalAll(tree.pgid, entries, "SIGKILL");
    signalled += entries.length + (group ? 1 : 0);
  }
  live.clear();
  return signalled;
}
