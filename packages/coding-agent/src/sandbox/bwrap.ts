// The Linux back end: a SandboxPolicy as bubblewrap arguments. The root is mounted read-only,
// writable paths are bound over it, protected paths re-bound read-only inside them, secrets
// hidden, and the command runs in its own user, PID, network, IPC and UTS namespaces with no
// capabilities — so its whole process tree dies with it, or with keel (`--die-with-parent`).
import { closeSync, mkdirSync, openSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import type { PathEntry, SandboxPolicy } from "./policy.js";

/** Host files the arguments refer to, made once per process (see runtime.ts). */
export interface BwrapAssets {
  /** An empty, read-only folder: the source of hidden and placeholder folders. */
  emptyDir: string;
  /** An empty, read-only file: the same for files. */
  emptyFile: string;
}

export interface BwrapFeatures {
  /** bubblewrap ≥ 0.8: `--disable-userns` (no nested user namespaces inside). */
  disableUserns: boolean;
  /** The seccomp filter is passed on this file descriptor (see seccomp.ts); absent: none. */
  seccompFd?: number;
  /** bubblewrap writes the host pid of the sandbox's init here (`--info-fd`); see runtime.ts. */
  infoFd?: number;
}

/**
 * The isolation every sandboxed command gets, before any mount of its policy: its own namespaces,
 * no capabilities, the root read-only with fresh /dev and /proc. The probe tries exactly these.
 */
export function isolationArgs(features: BwrapFeatures): string[] {
  return [
    // No --new-session: Keel starts every command in a session of its own, with no terminal.
    "--die-with-parent",
    "--unshare-all",
    // As root --unshare-all only tries; the user namespace is what leaves the command no capabilities.
    "--unshare-user",
    ...(features.disableUserns ? ["--disable-userns"] : []),
    "--cap-drop",
    "ALL",
    ...(features.seccompFd !== undefined ? ["--seccomp", String(features.seccompFd)] : []),
    ...(features.infoFd !== undefined ? ["--info-fd", String(features.infoFd)] : []),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
}

/**
 * The arguments before the command. Order matters: later mounts cover earlier ones, so the
 * read-only root comes first, then /tmp, then what is visible or writable, then what stays
 * read-only inside it, and what is hidden last of all.
 */
export function bwrapArgs(policy: SandboxPolicy, assets: BwrapAssets, features: BwrapFeatures): string[] {
  const args = isolationArgs(features);
  if (policy.tmp.kind === "ephemeral") args.push("--tmpfs", "/tmp");
  else args.push("--bind", policy.tmp.dir, "/tmp");
  for (const path of policy.visible) if (!policy.writable.includes(path)) args.push("--ro-bind", path, path);
  for (const path of policy.writable) args.push("--bind", path, path);
  for (const path of policy.pinned) args.push("--bind", path, path);
  for (const e of policy.readOnly) {
    if (e.exists) args.push("--ro-bind", e.path, e.path);
    else args.push("--ro-bind", e.kind === "dir" ? assets.emptyDir : assets.emptyFile, e.path);
  }
  for (const e of policy.hidden) {
    if (e.kind === "dir") args.push("--ro-bind", assets.emptyDir, e.path);
    else args.push("--ro-bind", assets.emptyFile, e.path);
  }
  args.push("--setenv", "TMPDIR", "/tmp", "--chdir", policy.cwd);
  return args;
}

/**
 * Makes the empty folders (and files, for shell start-up files) that hold read-only entries which
 * do not exist yet (bubblewrap needs a mount point, and would otherwise leave one behind of its
 * own), and returns what removes them once the command is over: each only if it is still empty.
 */
export function makePlaceholders(entries: readonly PathEntry[]): () => void {
  const made: PathEntry[] = [];
  for (const e of entries) {
    if (e.exists) continue;
    try {
      if (e.kind === "dir") mkdirSync(e.path);
      else closeSync(openSync(e.path, "wx", 0o444));
      made.push(e);
    } catch {
      // Something else made it meanwhile (another command's placeholder): it is mounted over all the same.
    }
  }
  return () => {
    for (const e of made.reverse()) {
      try {
        if (e.kind === "dir") rmdirSync(e.path);
        else if (statSync(e.path).size === 0) unlinkSync(e.path);
      } catch {
        // Not empty any more (Keel's own write landed there) or already gone: left as it is.
      }
    }
  };
}
