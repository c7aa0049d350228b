// Ends a command's whole process tree: its process group (the shell ran detached, so it
// leads one) plus, on Linux, descendants that moved to another group or session.
import { readdirSync, readFileSync } from "node:fs";
import { errnoCode } from "../fs/errno.js";

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
}

/** A /proc snapshot, or undefined where there is no /proc (macOS). */
function processTable(): ProcInfo[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const table: ProcInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // The command name may hold spaces and parens: the fixed fields resume after the last ')'.
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    table.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), zombie: state === "Z" });
  }
  return table;
}

function signalProbe(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}

/**
 * True while a live process of the group led by `pgid` exists. Zombies do not count: they are
 * already dead, and an init that never reaps (some containers) would otherwise keep them "alive".
 */
export function groupAlive(pgid: number): boolean {
  const table = processTable();
  if (table === undefined) return signalProbe(-pgid);
  return table.some((p) => p.pgrp === pgid && !p.zombie);
}

export function pidAlive(pid: number): boolean {
  const table = processTable();
  if (table === undefined) return signalProbe(pid);
  return table.some((p) => p.pid === pid && !p.zombie);
}

/**
 * Descendants of `root`. Only the live tree can be walked: once a parent exits its children
 * are re-parented, so call this before killing.
 */
export function descendantPids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of processTable() ?? []) {
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function signalAll(pgid: number, pids: readonly number[], signal: NodeJS.Signals): void {
  for (const target of [-pgid, ...pids]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}

const POLL_MS = 25;
const REAP_WAIT_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL after `graceMs` to whatever is still alive; resolves once all are gone (bounded). */
export async function killTree(pgid: number, graceMs: number): Promise<void> {
  const stragglers = descendantPids(pgid);
  const anyAlive = () => {
    const table = processTable();
    if (table === undefined) return signalProbe(-pgid) || stragglers.some(signalProbe);
    const wanted = new Set(stragglers);
    return table.some((p) => !p.zombie && (p.pgrp === pgid || wanted.has(p.pid)));
  };
  signalAll(pgid, stragglers, "SIGTERM");
  for (let waited = 0; waited < graceMs && anyAlive(); waited += POLL_MS) await sleep(POLL_MS);
  if (!anyAlive()) return;
  signalAll(pgid, stragglers, "SIGKILL");
  // SIGKILL cannot be caught; this only waits for the kernel to finish them off.
  for (let waited = 0; waited < REAP_WAIT_MS && anyAlive(); waited += POLL_MS) await sleep(POLL_MS);
}
