// The environment a login shell sets up (profile files: PATH, version managers, …), captured
// once and reused: starting `bash -l` for every command costs hundreds of milliseconds.
import { spawn } from "node:child_process";

const SNAPSHOT_TIMEOUT_MS = 5000;
const snapshots = new Map<string, Promise<Record<string, string> | undefined>>();

function capture(shell: string, base: NodeJS.ProcessEnv): Promise<Record<string, string> | undefined> {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(shell, ["-lc", "env -0"], {
      env: base,
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      resolve(undefined);
    }, SNAPSHOT_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve(undefined);
      const env: Record<string, string> = {};
      for (const pair of out.split("\0")) {
        const eq = pair.indexOf("=");
        if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      // Variables bash sets for its own process are not part of the user's environment.
      for (const own of ["SHLVL", "_", "PWD", "OLDPWD"]) delete env[own];
      resolve(Object.keys(env).length > 0 ? env : undefined);
    });
  });
}

/**
 * The login environment of `shell` for the current HOME, or undefined when it cannot be taken
 * (the caller then runs commands as login shells instead). Started once, shared by every call.
 */
export function loginEnvironment(
  shell: string,
  base: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string> | undefined> {
  const key = `${shell}\0${base.HOME ?? ""}`;
  let snapshot = snapshots.get(key);
  if (!snapshot) {
    snapshot = capture(shell, base);
    snapshots.set(key, snapshot);
  }
  return snapshot;
}
