// Ends a stdio server and everything it started. On POSIX the server leads a process group of its
// own, so one signal reaches every process still in it, also those whose parent already exited;
// its tree (read before anything is signalled, since children are re-parented once their parent
// exits) catches a child that left the group. Windows ends the tree with taskkill.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

function linuxTable(): ProcEntry[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const table: ProcEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name may hold spaces and parens: the fixed fields resume after the last ')'.
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z") table.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

function psTable(): ProcEntry[] {
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="], { encoding: "utf8" });
    return out
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter((row): row is [number, number, number] => row.length === 3 && row.every(Number.isFinite))
      .map(([pid, ppid, pgid]) => ({ pid, ppid, pgid }));
  } catch {
    return [];
  }
}

const table = (): ProcEntry[] => linuxTable() ?? psTable();

/** `root` and every live descendant, parents first. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of table()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const child of children.get(found[i]!) ?? []) found.push(child);
  return found;
}

/** The live processes of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return table()
    .filter((p) => p.pgid === pgid)
    .map((p) => p.pid);
}

/** True while `pid` runs. A zombie is already dead (and an init that never reaps would keep it). */
export function alive(pid: number): boolean {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until none of `pids` is alive, up to `ms`; returns those still alive. */
export async function waitForExit(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(20);
    left = left.filter(alive);
  }
  return left;
}

/**
 * Ends what is left of a server: the processes of its group (`group`, POSIX only) and of its tree,
 * SIGTERM first, SIGKILL to whatever is still there after `stepMs`.
 */
export async function endProcesses(tree: number[], group: number | undefined, stepMs: number): Promise<void> {
  if (process.platform === "win32") {
    try {
      execFileSync("taskkill", ["/pid", String(tree[0]), "/T", "/F"], { stdio: "ignore" });
    } catch {
      // already gone
    }
    return;
  }
  const left = () => [...new Set([...(group ? groupMembers(group) : []), ...tree.filter(alive)])];
  const living = left();
  if (living.length === 0) return;
  if (group) signal([-group], "SIGTERM");
  signal(living, "SIGTERM");
  const stubborn = await waitForExit(living, stepMs);
  const more = left();
  if (stubborn.length === 0 && more.length === 0) return;
  if (group) signal([-group], "SIGKILL");
  signal([...new Set([...stubborn, ...more])], "SIGKILL");
  await waitForExit([...new Set([...stubborn, ...more])], stepMs);
}
