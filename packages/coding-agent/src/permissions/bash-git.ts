// What git does that a Bash command's judgement must see: `git config` writes (a protected file
// that can name programs), and whether a git read may run repository code (its config, the
// index hook a refresh triggers) where the shell would run it.
import { relative } from "node:path";
import { indexHook } from "./git-hooks.js";
import { discover, gitEnvironmentRisk, gitRepositoryRisk } from "./git-repo.js";
import { expandHome, isInside, resolveShellPath } from "./paths.js";
import { gitConfigWrite, type IndexRefresh } from "./shell/git.js";
import type { ShellCommand, ShellWord } from "./shell/parser.js";
import { systemName } from "./shell/wrappers.js";
import type { BashContext } from "./shell-state.js";
import { judgePathWord, resolveWord } from "./shell-words.js";
import { ask, type Verdict } from "./verdict.js";

/** `git config KEY VALUE` writes git's configuration: a protected file (it can name programs to run). */
export function gitConfigWrites(effective: ShellWord[], ctx: BashContext): Verdict[] {
  if (systemName(effective[0]) !== "git") return [];
  const target = gitConfigWrite(effective.slice(1));
  if (!target) return [];
  const word = (value: string): ShellWord => ({
    value,
    static: true,
    raw: value,
    tilde: value.startsWith("~"),
  });
  switch (target.scope) {
    case "unknown":
      return [ask("git config writes a configuration file only known when the shell runs", [], true)];
    case "file":
      return judgePathWord(target.file, ctx, "write");
    case "global":
      return judgePathWord(word("~/.gitconfig"), ctx, "write");
    case "system":
      return judgePathWord(word("/etc/gitconfig"), ctx, "write");
    default: {
      const cwds = ctx.state.cwds;
      if (!cwds)
        return [ask("git config writes the config of a repository only known when the shell runs", [], true)];
      const file = target.scope === "worktree" ? "config.worktree" : "config";
      return cwds.flatMap((c) => {
        const found = discover(c);
        return found ? judgePathWord(word(`${found.gitDir}/${file}`), ctx, "write") : [];
      });
    }
  }
}

/**
 * Whether a git read that refreshes the index may write it (and so run post-index-change):
 * `git status` leaves it alone with GIT_OPTIONAL_LOCKS=0; `git diff` writes it regardless.
 */
export function optionalLocksOff(
  refresh: IndexRefresh | undefined,
  cmd: ShellCommand,
  ctx: BashContext,
): IndexRefresh | undefined {
  if (refresh !== "optional") return refresh;
  const prefix = cmd.assignments.find((a) => a.name === "GIT_OPTIONAL_LOCKS");
  if (prefix) return prefix.value.static && prefix.value.value === "0" ? undefined : refresh;
  if (ctx.state.assigned.has("GIT_OPTIONAL_LOCKS")) return refresh;
  return ctx.env.GIT_OPTIONAL_LOCKS === "0" ? undefined : refresh;
}

/**
 * Where git would run (each cwd, or each -C dir from it) must use a repository with an inert
 * config, and, for a command that writes the index, no post-index-change hook.
 */
export function gitRisk(dirs: ShellWord[], ctx: BashContext, refresh?: IndexRefresh): string | undefined {
  const env = gitEnvironmentRisk(ctx.env);
  if (env) return env;
  const cwds = ctx.state.cwds;
  if (!cwds) return "git runs in a directory only known when the shell runs";
  let places = cwds;
  for (const d of dirs) {
    const dir = resolveWord(d, ctx);
    if (!dir.static) return `git -C ${d.raw} names a directory only known when the shell runs`;
    const value = dir.tilde
      ? ctx.state.home
        ? expandHome(dir.value, ctx.state.home)
        : undefined
      : dir.value;
    if (value === undefined) return "git -C names a directory under a HOME the script changed";
    places = places.map((c) => resolveShellPath(value, c).real);
  }
  for (const place of places) {
    const risk = gitRepositoryRisk(place, ctx.workspace);
    if (risk) return risk;
    const hook = refresh ? indexHook(place, ctx.home, ctx.env) : undefined;
    if (hook) {
      const where = isInside(hook, ctx.workspace) ? relative(ctx.workspace, hook) : hook;
      return `it refreshes the index, and writing the index runs the repository's hook ${where}`;
    }
  }
  return undefined;
}
