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
 * RIPGREP_CONFIG_PATH, GREP_OPTIONS), where they write (TMPDIR), what awk loads (AWKPATH), where
 * git and other tools find their configuration (HOME, XDG_CONFIG_HOME: a committed
 * `cfg/git/config` can name a diff program), and the modules glibc, OpenSSL and the JVM load.
 */
const RISKY_ENV =
  /^(PATH|LD_.*|DYLD_.*|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|GIT_.*|PAGER|MANPAGER|EDITOR|VISUAL|HOME|ZDOTDIR|XDG_CONFIG_HOME|XDG_CONFIG_DIRS|LESSOPEN|LESSCLOSE|CDPATH|GLOBIGNORE|OLDPWD|TAR_OPTIONS|RIPGREP_CONFIG_PATH|GREP_OPTIONS|TMPDIR|AWKPATH|AWKLIBPATH|GCONV_PATH|LOCPATH|OPENSSL_CONF|OPENSSL_MODULES|OPENSSL_ENGINES|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|LUA_INIT|LUA_PATH|LUA_CPATH|SSH_ASKPASS|npm_config_.*|NPM_CONFIG_.*)$/i;

/** git variables that change neither the repository, its configuration nor the programs git runs. */
const INERT_GIT_ENV =
  /^GIT_(OPTIONAL_LOCKS|TERMINAL_PROMPT|(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|MERGE_AUTOEDIT|FLUSH|LITERAL_PATHSPECS|GLOB_PATHSPECS|NOGLOB_PATHSPECS|ICASE_PATHSPECS|NO_REPLACE_OBJECTS|ADVICE|PROGRESS_DELAY)$/;

export function isRiskyEnv(name: string): boolean {
  return RISKY_ENV.test(name) && !INERT_GIT_ENV.test(name);
}

/** Variables whose value is a command line a program runs: judged as a script when it is known. */
export const COMMAND_ENV =
  /^(EDITOR|VISUAL|PAGER|MANPAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_PAGER|GIT_SSH_COMMAND|GIT_SSH|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|PROMPT_COMMAND)$/;

/** Risky variables that move paths only, never what program runs: the path checks follow them. */
export const PATH_ONLY_ENV = /^(CDPATH|OLDPWD|GLOBIGNORE|TMPDIR)$/;

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
  /** Variables known to hold integers (so arithmetic that reads them runs nothing). */
  integers: Set<string>;
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
    integers: new Set(),
  };
}

export function guardsOf(ctx: PathContext): BashContext["guarded"] {
  const any = (family: "bash" | "read" | "edit") =>
    rulesFor(ctx.rules, "deny", family, ctx.tool).length > 0 ||
    rulesFor(ctx.rules, "ask", family, ctx.tool).length > 0;
  return { bash: any("bash"), read: any("read"), edit: any("edit") };
}

/** The shell variable `name` now has a value the checker does not know. */
export function assign(state: ShellState, name: string): void {
  state.assigned.add(name);
  state.integers.delete(name);
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
  // `coproc NAME { …; }` sets the array NAME.
  if (name === "coproc" && cmd.words.length > 2 && ["{", "("].includes(cmd.words[2]!.value))
    assigned.push(cmd.words[1]!.value);
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
  // An integer stays one after an assignment that may not run; only a sure one makes one.
  const integral = (a: ShellCommand["assignments"][number]) =>
    (a.value.static && /^[+-]?\d+$/.test(a.value.value)) ||
    /^\$(\(\([^()]*\)\)|\[[^\]]*\])$/.test(a.value.raw) ||
    cmd.integers?.includes(a.name);
  for (const n of assigned) {
    const a = cmd.assignments.find((x) => x.name === n);
    const was = state.integers.has(n);
    assign(state, n);
    if (a && integral(a) && (cmd.certain || was)) state.integers.add(n);
  }
  if (name === "hash" && cmd.words.some((w) => /^-[a-z]*[pdr]/.test(w.value)))
    state.namesChanged ??= "hash rebinds a command name";
  if (name === "alias" || name === "enable") state.namesChanged ??= `${name} changes what command names mean`;
  if (name === "shopt" || (name === "set" && cmd.words.some((w) => /^[-+][a-z]*[fo]/.test(w.value))))
    state.globsChanged = true;
  return assigned;
}

/** After `source file`: anything the file does to the shell is unknown. */
export function forgetEverything(state: ShellState, why: string): void {
  state.integers.clear();
  state.cwds = undefined;
  state.home = undefined;
  state.cdpath = true;
  state.namesChanged ??= why;
  state.globsChanged = true;
}

/** A copy to judge a command line with that must not move the script's own state (an EDITOR value). */
export function cloneState(state: ShellState): ShellState {
  return {
    ...state,
    cwds: state.cwds ? [...state.cwds] : undefined,
    assigned: new Set(state.assigned),
    integers: new Set(state.integers),
  };
}
