// Sees through command wrappers (env, sudo, timeout, nice, exec, setsid, flock, trap, watch,
// xargs, git's global options, sh -c, here-documents into shells, the runners of runners.ts …)
// to what actually runs, one layer at a time (peel.ts).
import { commandName, systemName } from "./names.js";
import type { ShellCommand, ShellWord } from "./parser.js";
import { peel } from "./peel.js";

export interface Layer {
  words: ShellWord[];
  /** The wrapper that was peeled to reach this layer (undefined for the full command). */
  via?: string;
  /**
   * Rules for this layer's command also allow the whole line: the wrappers above it only bound
   * time, priority or buffering. Not through sudo, setsid, watch, git's redirecting options, …
   */
  transparent: boolean;
}

export interface Unwrapped {
  /** layers[0] is the command as written; each next one has one wrapper removed. */
  layers: Layer[];
  /** Reached through sudo/doas/su/chroot: rules for the inner command alone do not allow it. */
  elevated: boolean;
  /** The innermost command gets arguments we cannot see (xargs, find -exec). */
  appendsArgs: boolean;
  /** `sh -c 'script'`, `eval`, `trap`, `watch`, `flock -c`, `env -S`: the script to judge in its place. */
  script?: ShellWord;
  /** Commands run by `find -exec …`, judged alongside. */
  extras: ShellWord[][];
  /** Why we cannot see what runs (a script file, stdin, a dynamic command name or script). */
  opaque?: string;
  /**
   * The program itself is only known at run time (`$CMD`, `eval "$x"`, `sh -c "$s"`): it could be
   * one a deny rule names, so with such rules even bypassPermissions asks.
   */
  dynamic?: boolean;
  /** We see what runs, but a wrapper keeps it from counting as a read (env -C, chroot, setsid). */
  notRead?: string;
  /** Env assignments made by `env NAME=VALUE`. */
  envAssignments: { name: string; value: ShellWord }[];
  /** Files a wrapper itself writes (`time -o`, `flock`'s lock file). */
  writes: ShellWord[];
  /** Files a wrapper itself reads (`xargs -a`). */
  reads: ShellWord[];
  /** `source` / `.`: a file's commands run in this shell and may change PATH, HOME, the directory. */
  sources?: ShellWord;
  /** Global options peeled off a `git` command line. */
  gitGlobals?: ShellWord[];
}

export { commandName, INTERPRETERS, SHELLS, systemName } from "./names.js";

const MAX_LAYERS = 16;

/** `input`: what the script feeds the command's standard input (a shell reads its commands there). */
export function unwrap(words: ShellWord[], input?: ShellCommand["input"]): Unwrapped {
  const out: Unwrapped = {
    layers: [{ words, transparent: true }],
    elevated: false,
    appendsArgs: false,
    extras: [],
    envAssignments: [],
    writes: [],
    reads: [],
  };
  let current = words;
  for (let i = 0; i < MAX_LAYERS; i++) {
    const name = commandName(current[0]);
    if (current.length > 0 && name === undefined) {
      out.opaque = `the command name ${current[0]!.raw} is only known when the shell runs`;
      out.dynamic = true;
      return out;
    }
    const step = peel(name ?? "", current, out, input);
    if (!step) return out;
    // A file of the workspace named like a wrapper is that file, not the wrapper.
    const trusted = systemName(current[0]) !== undefined;
    if (!trusted) out.notRead ??= `${current[0]!.raw} is a file, not the system's ${name}`;
    current = step.words;
    out.layers.push({ words: current, via: name, transparent: trusted && step.transparent });
  }
  out.opaque = "too many nested wrappers";
  return out;
}
