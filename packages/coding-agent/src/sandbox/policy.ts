// What a sandboxed command may touch, per permission mode: one plain description that the Linux
// (bubblewrap) and macOS (Seatbelt) back ends each translate. Built from the one list of protected
// paths the permission gate uses, so the gate and the sandbox never disagree on what is protected.
import { lstatSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../permissions/paths.js";
import { HOME_PROTECTED, HOME_SECRETS, WORKSPACE_PROTECTED } from "../permissions/protected-paths.js";
import type { PermissionMode } from "../permissions/types.js";

export interface PathEntry {
  path: string;
  kind: "dir" | "file";
  /**
   * False: nothing is there yet. A read-only entry that does not exist is held by an empty
   * placeholder for the command's life (so the command cannot create it); see bwrap.ts.
   */
  exists: boolean;
}

export interface SandboxPolicy {
  mode: PermissionMode;
  /** Host paths the command may write, besides its own /tmp. */
  writable: string[];
  /** Paths inside `writable` that stay read-only: git's hooks and config, Keel's and agents' config, rc files. */
  readOnly: PathEntry[];
  /**
   * Writable folders holding read-only entries (`.git`): mounted onto themselves, so a command
   * cannot rename one away and put a folder of its own making in its place.
   */
  pinned: string[];
  /** Never readable: Keel's home, credential stores, paths a Read deny rule names. Existing ones only. */
  hidden: PathEntry[];
  /** Shown read-only when nothing makes them writable (a workspace below /tmp stays visible in plan mode). */
  visible: string[];
  /** plan: a fresh empty /tmp per command, gone with it; otherwise the session's private folder. */
  tmp: { kind: "ephemeral" } | { kind: "private"; dir: string };
  /** "proxy": only through Keel's allowlisting proxy; "none": no network at all. */
  network: "none" | "proxy";
  cwd: string;
}

export interface PolicyInput {
  mode: PermissionMode;
  /** realpaths. */
  workspace: string;
  cwd: string;
  userHome: string;
  keelHome: string;
  /** The session's private temporary folder (bound at /tmp outside plan mode). */
  privateTmp: string;
  /** More writable paths from the user's config (absolute). */
  allowWrite?: readonly string[];
  /** Paths Read deny rules name, already expanded (absolute). */
  readDenied?: readonly string[];
  /** True when the user allows some domains (then the proxy is the only way out). */
  networkAllowed: boolean;
}

/** The home folder's start-up and config files (`.bashrc`, `.gitconfig`, `.npmrc`, …). */
const HOME_FILES = new Set(
  HOME_PROTECTED.filter((p) => /^\.[a-z_]*(rc|profile|env|login|logout|config)$/.test(p)),
);

/**
 * A missing entry is held by an empty folder (`.mcp.json` too): an empty folder is all git
 * ignores, so a command's `git add -A` cannot commit a placeholder. A shell's start-up file is
 * held by an empty file instead: a shell starting meanwhile (or after a crash left it) reads an
 * empty file where a folder would make it complain.
 */
function entry(path: string, homeFile = false): PathEntry {
  const stat = statQuiet(path);
  if (stat) return { path, kind: stat.isDirectory() ? "dir" : "file", exists: true };
  return { path, kind: homeFile ? "file" : "dir", exists: false };
}

function statQuiet(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * A missing protected path whose parent is missing too (`.git/hooks` with no `.git`) is held at
 * its first missing ancestor: a placeholder can only be made where its parent exists.
 */
function placeholderFor(path: string, base: string, homeFile = false): PathEntry {
  let at = path;
  while (dirname(at) !== base && !statQuiet(dirname(at))) at = dirname(at);
  return entry(at, homeFile && at === path);
}

/**
 * A linked worktree's `.git` is a file naming its git directory: git writes there (and in the main
 * repository's common directory) on commit, so both are writable, their hooks and config not.
 */
function linkedGitDirs(workspace: string): string[] {
  const dotGit = join(workspace, ".git");
  try {
    if (!lstatSync(dotGit).isFile()) return [];
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (!m) return [];
    const gitDir = resolve(workspace, m[1]!.trim());
    const dirs = [gitDir];
    const common = statQuiet(join(gitDir, "commondir"))
      ? readFileSync(join(gitDir, "commondir"), "utf8").trim()
      : undefined;
    if (common) dirs.push(isAbsolute(common) ? common : resolve(gitDir, common));
    return dirs.filter((d) => statQuiet(d)?.isDirectory());
  } catch {
    return [];
  }
}

export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const hidden = [
    input.keelHome,
    ...HOME_SECRETS.map((p) => join(input.userHome, p)),
    ...(input.readDenied ?? []),
  ]
    .map((path) => entry(path))
    .filter((e) => e.exists);
  const visible = [input.workspace, ...(isInside(input.cwd, input.workspace) ? [] : [input.cwd])];
  if (input.mode === "plan")
    return {
      mode: input.mode,
      writable: [],
      readOnly: [],
      pinned: [],
      hidden,
      visible,
      tmp: { kind: "ephemeral" },
      network: "none",
      cwd: input.cwd,
    };

  const gitDirs = linkedGitDirs(input.workspace);
  const writable = unique([input.workspace, ...(input.allowWrite ?? []), ...gitDirs]);
  const candidates: PathEntry[] = [
    ...WORKSPACE_PROTECTED.map((p) => placeholderFor(join(input.workspace, p), input.workspace)),
    ...HOME_PROTECTED.map((p) => placeholderFor(join(input.userHome, p), input.userHome, HOME_FILES.has(p))),
    entry(input.keelHome),
    // The `.git` file of a linked worktree: rewritten, it would point git at a directory the command made.
    ...(gitDirs.length > 0 ? [entry(join(input.workspace, ".git"))] : []),
    ...gitDirs.flatMap((d) => [
      entry(join(d, "hooks")),
      entry(join(d, "config")),
      entry(join(d, "config.worktree")),
    ]),
  ];
  const readOnly = uniqueBy(
    candidates.filter(
      (c) =>
        writable.some((w) => isInside(c.path, w)) &&
        // A missing one matters only where the command could create it; a missing file inside a
        // linked git directory is not something git reads unless its config says so.
        (c.exists || !gitDirs.some((d) => isInside(c.path, d))),
    ),
  );
  const pinned = new Set<string>();
  for (const e of readOnly) {
    const root = writable.find((w) => isInside(e.path, w));
    for (let at = dirname(e.path); root !== undefined && at !== root && isInside(at, root); at = dirname(at))
      pinned.add(at);
  }
  return {
    mode: input.mode,
    writable,
    readOnly,
    // Outer folders first: each mount lands inside the one before it.
    pinned: [...pinned].sort((a, b) => a.length - b.length),
    hidden,
    visible,
    tmp: { kind: "private", dir: input.privateTmp },
    network: input.networkAllowed ? "proxy" : "none",
    cwd: input.cwd,
  };
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function uniqueBy(entries: PathEntry[]): PathEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => !seen.has(e.path) && seen.add(e.path));
}
