// Which OS sandbox this machine can start, found once per process: bubblewrap on Linux (tried for
// real, since a kernel or container may refuse user namespaces), Seatbelt on macOS, none elsewhere.
import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { isolationArgs } from "./bwrap.js";
import { unixSocketFilter } from "./seccomp.js";

export type SandboxBackend =
  | {
      kind: "bwrap";
      path: string;
      /** `--disable-userns` is understood (bubblewrap ≥ 0.8). */
      disableUserns: boolean;
      /** A seccomp filter for this architecture exists (see seccomp.ts). */
      seccomp: boolean;
    }
  | { kind: "seatbelt"; path: string };

/** No OS sandbox can start here, and why (what a command refused for it says too). */
export interface SandboxRefusal {
  type: "sandbox_unavailable";
  message: string;
}

export type SandboxAvailability = Result<SandboxBackend, SandboxRefusal>;

export const unavailable = (message: string) =>
  err<never, SandboxRefusal>({ type: "sandbox_unavailable", message });

const PROBE_TIMEOUT_MS = 5000;

function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [...(env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/bin", "/bin"];
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(
  file: string,
  args: string[],
  extraFd?: number,
): Promise<{ code: number | null; out: string; error?: string }> {
  return new Promise((resolve) => {
    let out = "";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, {
        stdio: ["ignore", "pipe", "pipe", ...(extraFd !== undefined ? [extraFd] : [])],
      });
    } catch (error) {
      resolve({ code: null, out, error: String(error) });
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, out, error: error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

async function probeBwrap(path: string): Promise<SandboxAvailability> {
  const version = await run(path, ["--version"]);
  if (version.code !== 0)
    return unavailable(`${path} does not run (${(version.error ?? version.out).trim()})`);
  const m = /(\d+)\.(\d+)/.exec(version.out);
  const disableUserns = m !== null && (Number(m[1]) > 0 || Number(m[2]) >= 8);
  const filter = unixSocketFilter();
  const dir = mkdtempSync(join(tmpdir(), "keel-sandbox-probe-"));
  try {
    let fd: number | undefined;
    if (filter) {
      writeFileSync(join(dir, "filter"), filter);
      fd = openSync(join(dir, "filter"), "r");
    }
    const trial = await run(
      path,
      [...isolationArgs({ disableUserns, ...(fd !== undefined ? { seccompFd: 3 } : {}) }), "--", "true"],
      fd,
    );
    if (fd !== undefined) closeSync(fd);
    if (trial.code !== 0) {
      const said = (trial.error ?? trial.out).trim().split("\n")[0] ?? "";
      const hint = /namespace|uid map|permission|not permitted/i.test(said)
        ? " (user namespaces are not allowed here)"
        : "";
      return unavailable(`bubblewrap cannot start a sandbox: ${said}${hint}`);
    }
    return ok({ kind: "bwrap", path, disableUserns, seccomp: filter !== undefined });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const probes = new Map<string, Promise<SandboxAvailability>>();

/**
 * What sandbox commands can run in here. `KEEL_BWRAP` names the bubblewrap to use (default: the
 * one on PATH). Cached per process and bwrap path.
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  if (process.platform === "darwin") {
    const path = "/usr/bin/sandbox-exec";
    return Promise.resolve(
      findExecutable("sandbox-exec", { PATH: "/usr/bin" }) === path
        ? ok({ kind: "seatbelt", path })
        : unavailable("macOS's sandbox-exec was not found"),
    );
  }
  if (process.platform !== "linux")
    return Promise.resolve(unavailable(`there is no sandbox Keel can use on ${process.platform}`));
  const path = env.KEEL_BWRAP || findExecutable("bwrap", env);
  if (!path)
    return Promise.resolve(
      unavailable("bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)"),
    );
  let probe = probes.get(path);
  if (!probe) {
    probe = probeBwrap(path);
    probes.set(path, probe);
  }
  return probe;
}
