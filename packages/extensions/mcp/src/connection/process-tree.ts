// Ends a stdio server and everything it started. On POSIX the server leads a process group of its
// own, so one signal reaches every process still in it, also those whose parent already exited;
// its tree (read before anything is signalled, since children are re-parented once their parent
// exits) catches a child that left the group. Every process is remembered with its start time, so
// a pid the system hands to a later process is never signalled. Windows ends the tree with taskkill.
import { execFileSync } from "node:child_process";
import {
  descendants,
  type ProcessEntry,
  processEntry,
  processTable,
  signalProcesses,
  stillRunning,
} from "@keel/extension-sdk/node";

type Member = Pick<ProcessEntry, "pid" | "start">;

/** `root` and every live descendant, parents first (macOS reads `ps`). */
export function processTree(root: number): Member[] {
  const table = processTable({ portable: true }) ?? [];
  const self = table.find((p) => p.pid === root) ?? processEntry(root) ?? { pid: root };
  return [self, ...descendants(root, table)];
}

/** The live processes of process group `pgid`. */
export function groupMembers(pgid: number): Member[] {
  return (processTable({ portable: true }) ?? []).filter((p) => p.pgid === pgid && !p.zombie);
}

function signalGroup(pgid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pgid, name);
  } catch {
    // the group is gone
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until none of `members` runs, up to `ms`; returns those still running. */
export async function waitForExit(members: Member[], ms: number): Promise<Member[]> {
  const deadline = Date.now() + ms;
  let left = members.filter(stillRunning);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(20);
    left = left.filter(stillRunning);
  }
  return left;
}

function unique(members: Member[]): Member[] {
  const seen = new Set<number>();
  return members.filter((m) => !seen.has(m.pid) && seen.add(m.pid));
}

/**
 * Ends what is left of a server: the processes of its group (`group`, POSIX only) and of its tree,
 * SIGTERM first, SIGKILL to whatever is still there after `stepMs`.
 */
export async function endProcesses(tree: Member[], group: number | undefined, stepMs: number): Promise<void> {
  if (process.platform === "win32") {
    try {
      execFileSync("taskkill", ["/pid", String(tree[0]?.pid), "/T", "/F"], { stdio: "ignore" });
    } catch {
      // already gone
    }
    return;
  }
  const left = () => unique([...(group ? groupMembers(group) : []), ...tree.filter(stillRunning)]);
  const living = left();
  if (living.length === 0) return;
  if (group) signalGroup(group, "SIGTERM");
  signalProcesses(living, "SIGTERM");
  const stubborn = await waitForExit(living, stepMs);
  const more = left();
  if (stubborn.length === 0 && more.length === 0) return;
  if (group) signalGroup(group, "SIGKILL");
  const last = unique([...stubborn, ...more]);
  signalProcesses(last, "SIGKILL");
  await waitForExit(last, stepMs);
}
