// When a process started, to tell the process that wrote a lock from a later one that was
// given the same pid: Linux reads /proc, other systems ask ps; undefined when neither answers.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Linux reports start times in USER_HZ ticks, which is 100 on every architecture Keel runs on. */
const USER_HZ = 100;

let bootTimeMs: number | undefined;

function linuxBootTimeMs(): number | undefined {
  if (bootTimeMs !== undefined) return bootTimeMs;
  try {
    const line = readFileSync("/proc/stat", "utf8")
      .split("\n")
      .find((l) => l.startsWith("btime "));
    if (line) bootTimeMs = Number(line.slice(6)) * 1000;
  } catch {
    // not Linux
  }
  return bootTimeMs;
}

function linuxStartMs(pid: number): number | undefined {
  const boot = linuxBootTimeMs();
  if (boot === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Field 22 (starttime); the command name (field 2) may hold spaces, so count after its ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? boot + (ticks / USER_HZ) * 1000 : undefined;
}

function psStartMs(pid: number): number | undefined {
  try {
    const out = execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    }).trim();
    const ms = Date.parse(out);
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** Milliseconds since the epoch at which `pid` started, to about a second; undefined if unknown. */
export function processStartMs(pid: number): number | undefined {
  if (process.platform === "linux") return linuxStartMs(pid);
  if (process.platform === "win32") return undefined;
  return psStartMs(pid);
}
