// What a script does to the shell judging its later commands depends on: the directory, HOME,
// CDPATH, and whether command names still mean the system's programs (PATH, hash, alias, source).
// Tracked in order over the script, pessimistically: once unknown, unknown for the rest.
import type { Parser } from "web-tree-sitter";
import type { PathContext } from "./pathcheck.js";
import { rulesFor } from "./rules.js";
import type { ShellCommand } from "./shell/parser.js";
import { commandName } from "./shell/wrappers.js";

/**
 * Variables that change what later programs load or run, or where paths lead: never set silently.
 * Besides loaders and shells: options readers take from the environment (TAR_OPTIONS,
 * RIPGREP_CONFIG_PATH, GREP_OPTIONS), where they write (TMPDIR) and what awk loads (AWKPATH).
 */
export const RISKY_ENV =
  /^(PATH|LD_.*|DYLD_.*|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|PERL5LIB|RUBYOPT|GIT_.*|PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|HOME|ZDOTDIR|LESSOPEN|LESSCLOSE|CDPATH|GLOBIGNORE|OLDPWD|TAR_OPTIONS|RIPGREP_CONFIG_PATH|GREP_OPTIONS|TMPDIR|AWKPATH|AWKLIBPATH|npm_config_.*|NPM_CONFIG_.*)$/i;

export interface ShellState {
  /** Every directory a later command might run in; undefined once unknowable. */
  cwds: string[] | undefined;
  /** $HOME as the shell will expand it; undefined once the script assigns it. */
  home: string | undefined;
  /** CDPATH is set, so `cd name` may go anywhere on it. */
  cdpath: boolean;
  /** Why command names may no longer mean the system's programs (PATH changed, hash -p, source). */
  namesChanged?: string;
  /** Variables the script assigned: their values are not known. */
  assigned: Set<string>;
  /** shopt changed how globs expand. */
  globsChanged: boolean;
}

export interface BashContext extends PathContext {
  parser: Parser;
  state: ShellState;
  /** The environment commands start with. */
  env: Readonly<Record<string, string | undefined>>;
  /** Deny or ask rules exist for this family: what cannot be judged may be what they name. */
  guarded: { bash: boolean; read: boolean; edit: boolean };
}

export function initialState(
  ctx: PathContext,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): ShellState {
  return {
    cwds: [cwd],
    home: ctx.home,
    cdpath: Boolean(env.CDPATH),
    assigned: new Set(),
    globsChanged: false,
  };
}

export function guardsOf(ctx: PathContext): BashContext["guarded"] {
  const any = (family: "bash" | "read" | "edit") =>
    rulesFor(ctx.rules, "deny", family).length > 0 || rulesFor(ctx.rules, "ask", family).length > 0;
  return { bash: any("bash"), read: any("read"), edit: any("edit") };
}

/** The shell variable `name` now has a value the checker does not know. */
export function assign(state: ShellState, name: string): void {
  state.assigned.add(name);
  if (name === "HOME") state.home = undefined;
  if (name === "CDPATH") state.cdpath = true;
  if (name === "PATH") state.namesChanged ??= "PATH was changed";
  if (name === "PWD" || name === "OLDPWD") state.assigned.add(name);
}

const DECLARATIONS = new Set(["export", "declare", "typeset", "local", "readonly"]);
/** Options of `read` and `mapfile` that take a value (the rest of the words are variable names). */
const READ_VALUES = new Set(["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u", "-C", "-c", "-O", "-s"]);

/**
 * Applies the shell-level effects of one command (not of a prefix `FOO=1 cmd`, which lasts for
 * that command only) and returns the names it assigns, for the caller to judge.
 */
export function applyStateEffects(cmd: ShellCommand, state: ShellState): string[] {
  const assigned: string[] = [];
  const name = commandName(cmd.words[0]);
  if (cmd.words.length === 0 || (name !== undefined && DECLARATIONS.has(name))) {
    for (const a of cmd.assignments) assigned.push(a.name);
  }
  if (name === "unset") {
    for (const w of cmd.words.slice(1)) if (!w.value.startsWith("-")) assigned.push(w.value);
  }
  if (name === "read" || name === "mapfile" || name === "readarray") {
    const words = cmd.words.slice(1);
    let named = false;
    for (let i = 0; i < words.length; i++) {
      const v = words[i]!.value;
      if (READ_VALUES.has(v)) {
        if (v === "-a" && words[i + 1]) assigned.push(words[i + 1]!.value);
        i++;
        continue;
      }
      if (v.startsWith("-")) continue;
      assigned.push(v);
      named = true;
    }
    if (!named) assigned.push(name === "read" ? "REPLY" : "MAPFILE");
  }
  for (const n of assigned) assign(state, n);
  if (name === "hash" && cmd.words.some((w) => /^-[a-z]*[pdr]/.test(w.value)))
    state.namesChanged ??= "hash rebinds a command name";
  if (name === "alias" || name === "enable") state.namesChanged ??= `${name} changes what command names mean`;
  if (name === "shopt" || (name === "set" && cmd.words.some((w) => /^[-+][a-z]*[fo]/.test(w.value))))
    state.globsChanged = true;
  return assigned;
}

/** After `source file`: anything the file does to the shell is unknown. */
export function forgetEverything(state: ShellState, why: string): void {
  state.cwds = undefined;
  state.home = undefined;
  state.cdpath = true;
  state.namesChanged ??= why;
  state.globsChanged = true;
}
