// The hook a "read-only" git command can run: `git status` and `git diff` refresh the index and,
// when they write it, git runs the repository's post-index-change hook (githooks(5)). Found where
// git looks: core.hooksPath from every config git reads (repository, user, system, and the files
// they include — all of them, since which include applies depends on conditions), else
// $GIT_COMMON_DIR/hooks. Measured on git 2.39.5: `git status` honours --no-optional-locks and
// GIT_OPTIONAL_LOCKS=0 (it then leaves the index alone); `git diff` writes the index regardless.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { configEntries, configFiles, discover, readText } from "./git-repo.js";

export const INDEX_HOOK = "post-index-change";

/** Includes followed from one config file, at most (git allows 10 levels of nesting). */
const MAX_INCLUDES = 32;

function expandUser(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** core.hooksPath values set in `files` and in the files they include. */
function hooksPathValues(files: string[], home: string): string[] {
  const found: string[] = [];
  const queue = [...files];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < files.length + MAX_INCLUDES) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readText(file);
    if (text === undefined) continue;
    const entries = configEntries(text);
    if (typeof entries === "string") continue;
    for (const e of entries) {
      if (e.section === "core" && e.sub === undefined && e.key === "hookspath") found.push(e.value);
      if ((e.section === "include" || e.section === "includeif") && e.key === "path" && e.value !== "") {
        const target = expandUser(e.value, home);
        queue.push(isAbsolute(target) ? target : resolve(dirname(file), target));
      }
    }
  }
  return found;
}

/** The config files outside the repository that git reads (system, then the user's). */
function userConfigFiles(home: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const xdg = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(home, ".config");
  return ["/etc/gitconfig", join(xdg, "git", "config"), join(home, ".gitconfig")];
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The post-index-change hook git would run for a command in `dir`, or undefined when there is
 * none (or `dir` is in no repository).
 */
export function indexHook(
  dir: string,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const found = discover(dir);
  if (!found) return undefined;
  const common = readText(join(found.gitDir, "commondir"))?.trim();
  const commonDir = common ? resolve(found.gitDir, common) : found.gitDir;
  const files = [...userConfigFiles(home, env), ...(configFiles(found.gitDir) ?? [])];
  const dirs = [join(commonDir, "hooks")];
  // A relative core.hooksPath is taken from where hooks run: the top of the work tree.
  for (const value of hooksPathValues(files, home)) {
    const path = expandUser(value, home);
    dirs.push(isAbsolute(path) ? path : resolve(found.top, path));
  }
  return dirs.map((d) => join(d, INDEX_HOOK)).find(isExecutableFile);
}
