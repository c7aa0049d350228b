// Finding a command's processes from outside its sandbox: inside, `$$` and `$!` are numbers in
// the sandbox's own PID namespace, so tests mark a process by a unique argument instead.
import { readdirSync, readFileSync } from "node:fs";

/** Host pids of live (not zombie) processes whose command line holds `token` as one argument. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (!args.includes(token)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A sleep duration no other process uses: `sleep <it>` is then found by processesWith. */
export function uniqueSleep(seconds: number): string {
  return `${seconds}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}
