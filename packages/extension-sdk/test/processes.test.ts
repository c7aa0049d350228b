// The process table and its PID-reuse guard, on real child processes (Linux /proc).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { descendants, processEntry, processTable, signalProcesses, stillRunning } from "../src/node/index.js";

const linux = process.platform === "linux";

function sleeper(args: string[] = []) {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)", ...args], { stdio: "ignore" });
  return child;
}

const exited = (child: ReturnType<typeof spawn>) => new Promise((resolve) => child.once("exit", resolve));

describe.runIf(linux)("processes (Linux)", () => {
  it("reads a child with its parent, group and start time, and finds it among our descendants", async () => {
    const child = sleeper();
    await new Promise((resolve) => child.once("spawn", resolve));
    const entry = processEntry(child.pid!)!;
    expect(entry).toMatchObject({ pid: child.pid, ppid: process.pid, zombie: false });
    expect(entry.start).toBeGreaterThan(0);
    expect(descendants(process.pid, processTable()!).map((p) => p.pid)).toContain(child.pid);
    child.kill("SIGKILL");
    await exited(child);
  });

  it("does not take a later process given the same pid for the one it remembered", async () => {
    const child = sleeper();
    await new Promise((resolve) => child.once("spawn", resolve));
    const entry = processEntry(child.pid!)!;
    expect(stillRunning(entry)).toBe(true);
    // The same pid, started at another time: what a reused pid looks like to the guard.
    const reused = { pid: entry.pid, start: entry.start! - 1 };
    expect(stillRunning(reused)).toBe(false);
    expect(signalProcesses([reused], "SIGKILL")).toBe(0);
    expect(stillRunning(entry)).toBe(true); // the signal never reached it
    expect(signalProcesses([entry], "SIGKILL")).toBe(1);
    await exited(child);
    expect(stillRunning(entry)).toBe(false);
  });
});
