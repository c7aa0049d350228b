// Where skills are looked for, in precedence order: a trusted project's `.keel/skills`,
// `.agents/skills` and `.claude/skills` from the working directory up to the project root, then
// the user's `~/.keel/skills`, `~/.agents/skills`, `~/.claude/skills` (when the host says the user
// lets Keel read ~/.claude) and configured folders, then the folders
// installed extensions ship. Pure: computes paths, touches no file.
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { SkillRoot } from "./types.js";

/** Per folder, the project-level skill folders in the order they win. */
export const PROJECT_SKILL_DIRS = [".keel/skills", ".agents/skills", ".claude/skills"] as const;

export interface RootsInput {
  cwd: string;
  projectRoot: string;
  trusted: boolean;
  keelHome: string;
  /** The user's home directory (for `~/.agents/skills` and `~` in configured paths). */
  home: string;
  /** Claude Code's user folder, when the user lets Keel read it: its `skills/` are personal skills. */
  claudeHome?: string;
  /** More user-level skill folders (`extensions.skills.config.paths`). */
  paths?: string[];
  extensionSkills?: { extensionId: string; path: string }[];
}

function tilde(path: string, home: string): string {
  const rel = relative(home, path);
  return rel === "" ? "~" : rel.startsWith("..") || isAbsolute(rel) ? path : `~/${rel.split(sep).join("/")}`;
}

export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return resolve(home, path);
}

/** The folders from `cwd` up to `projectRoot`, nearest first (only the root when cwd is outside it). */
export function projectDirs(cwd: string, projectRoot: string): string[] {
  const root = resolve(projectRoot);
  let dir = resolve(cwd);
  const rel = relative(root, dir);
  if (rel.startsWith("..") || isAbsolute(rel)) return [root];
  const dirs: string[] = [];
  for (;;) {
    dirs.push(dir);
    if (dir === root) return dirs;
    const parent = dirname(dir);
    if (parent === dir) return dirs;
    dir = parent;
  }
}

/**
 * The skill roots to scan, highest precedence first. An untrusted project contributes none:
 * nothing of it is read, stat'ed or watched.
 */
export function skillRoots(input: RootsInput): SkillRoot[] {
  const roots: SkillRoot[] = [];
  const seen = new Set<string>();
  const push = (root: SkillRoot) => {
    const key = resolve(root.path);
    if (seen.has(key)) return;
    seen.add(key);
    roots.push({ ...root, path: key });
  };
  if (input.trusted) {
    const projectRoot = resolve(input.projectRoot);
    for (const dir of projectDirs(input.cwd, projectRoot)) {
      for (const sub of PROJECT_SKILL_DIRS) {
        const path = join(dir, sub);
        const label = relative(projectRoot, path).split(sep).join("/");
        push({ path, scope: "project", label, trusted: true });
      }
    }
  }
  const keelSkills = join(input.keelHome, "skills");
  push({ path: keelSkills, scope: "user", label: tilde(keelSkills, input.home), trusted: true });
  const agentsSkills = join(input.home, ".agents", "skills");
  push({ path: agentsSkills, scope: "user", label: tilde(agentsSkills, input.home), trusted: true });
  if (input.claudeHome) {
    const claudeSkills = join(input.claudeHome, "skills");
    push({ path: claudeSkills, scope: "user", label: tilde(claudeSkills, input.home), trusted: true });
  }
  for (const p of input.paths ?? []) {
    const path = expandHome(p, input.home);
    push({ path, scope: "user", label: tilde(path, input.home), trusted: true });
  }
  for (const { extensionId, path } of input.extensionSkills ?? [])
    push({ path, scope: "extension", label: `extension ${extensionId}`, trusted: true });
  return roots;
}
