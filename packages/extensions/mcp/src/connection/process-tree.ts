// Ends a stdio server's whole process tree: servers often run through a wrapper (npx, uvx, a
// shell) whose children outlive a signal to the wrapper alone. The tree is read before anything
// is signalled, since children are re-parented once their parent exits.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

interface ProcEntry {
  pid: number;
  ppid: number;
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
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z") table.push({ pid: Number(entry), ppid: Number(ppid) });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

function psTable(): ProcEntry[] {
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], { encoding: "utf8" });
    return out
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter((pair): pair is [number, number] => pair.length === 2 && pair.every(Number.isFinite))
      .map(([pid, ppid]) => ({ pid, ppid }));
  } catch {
    return [];
  }
}

/** `root` and every live descendant, parents first. */
export function processTree(root: number): number[] {
  const table = linuxTable() ?? psTable();
  const children = new Map<number, number[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const child of children.get(found[i]!) ?? []) found.push(child);
  return found;
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

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(25);
    left = left.filter(alive);
  }
  return left;
}

/** SIGTERM to every process of the tree, SIGKILL to whatever is left after `graceMs`. */
export async function killTree(pids: number[], graceMs: number): Promise<void> {
  if (process.platform === "win32") {
    for (const pid of pids.slice(0, 1)) {
      try {
        execFileSync("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore" });
      } catch {
        // already gone
      }
    }
    return;
  }
  const living = pids.filter(alive);
  if (living.length === 0) return;
  signal(living, "SIGTERM");
  const stubborn = await waitGone(living, graceMs);
  signal(stubborn, "SIGKILL");
  await waitGone(stubborn, graceMs);
}

/** Waits until none of `pids` is alive, up to `ms`; returns those still alive. */
export function waitForExit(pids: number[], ms: number): Promise<number[]> {
  return waitGone(pids, ms);
}
