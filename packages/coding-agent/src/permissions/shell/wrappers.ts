// Sees through command wrappers (env, sudo, timeout, nice, nohup, xargs, sh -c …) to what actually runs.
import type { ShellWord } from "./parser.js";

export interface Layer {
  words: ShellWord[];
  /** The wrapper that was peeled to reach this layer (undefined for the full command). */
  via?: string;
}

export interface Unwrapped {
  /** layers[0] is the command as written; each next one has one wrapper removed. */
  layers: Layer[];
  /** Reached through sudo/doas: rules for the inner command alone do not allow it. */
  elevated: boolean;
  /** The innermost command gets extra arguments we cannot see (xargs, find -exec). */
  appendsArgs: boolean;
  /** `sh -c 'script'` / `eval`: the script to parse and judge in its place. */
  script?: ShellWord;
  /** Commands run by `find -exec …`, judged alongside. */
  extras: ShellWord[][];
  /** Why we cannot see what runs (a script file, stdin, a dynamic command name). */
  opaque?: string;
  /** Env assignments made by `env NAME=VALUE`. */
  envAssignments: string[];
}

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...SHELLS,
  "fish",
  "python",
  "python3",
  "node",
  "perl",
  "ruby",
  "php",
  "deno",
  "bun",
]);

const MAX_LAYERS = 16;

export function commandName(word: ShellWord | undefined): string | undefined {
  if (!word?.static) return undefined;
  // `/usr/bin/env` runs env: judge commands by their base name.
  const slash = word.value.lastIndexOf("/");
  return slash === -1 ? word.value : word.value.slice(slash + 1);
}

export function unwrap(words: ShellWord[]): Unwrapped {
  const out: Unwrapped = {
    layers: [{ words }],
    elevated: false,
    appendsArgs: false,
    extras: [],
    envAssignments: [],
  };
  let current = words;
  for (let i = 0; i < MAX_LAYERS; i++) {
    const name = commandName(current[0]);
    if (current.length > 0 && name === undefined) {
      out.opaque = `the command name ${current[0]!.raw} is only known when the shell runs`;
      return out;
    }
    const step = peel(name ?? "", current, out);
    if (!step) return out;
    current = step.words;
    out.layers.push({ words: current, via: name });
  }
  out.opaque = "too many nested wrappers";
  return out;
}

interface Step {
  words: ShellWord[];
}

function value(w: ShellWord | undefined): string | undefined {
  return w?.static ? w.value : undefined;
}

/** Skips options; `withArg` options consume the next word unless given as `-x5` / `--x=5`. */
function skipOptions(words: ShellWord[], start: number, withArg: ReadonlySet<string>): number | undefined {
  let i = start;
  while (i < words.length) {
    const v = value(words[i]);
    if (v === undefined) return undefined;
    if (v === "--") return i + 1;
    if (!v.startsWith("-") || v === "-") return i;
    const flag = v.startsWith("--") ? v.split("=")[0]! : v.slice(0, 2);
    i += withArg.has(flag) && (v === flag || (v.startsWith("--") && !v.includes("="))) ? 2 : 1;
  }
  return i;
}

function peel(name: string, words: ShellWord[], out: Unwrapped): Step | undefined {
  switch (name) {
    case "env": {
      let i = 1;
      for (; i < words.length; i++) {
        const v = value(words[i]);
        if (v === undefined) {
          out.opaque = "env with an argument only known when the shell runs";
          return undefined;
        }
        if (v === "-i" || v === "--ignore-environment" || v === "-0" || v === "--null") continue;
        if (v === "-u" || v === "--unset") {
          i++;
          continue;
        }
        if (v.startsWith("--unset=") || (v.startsWith("-u") && v.length > 2)) continue;
        if (v.startsWith("-")) {
          // -S splits a string into a new command line, -C changes directory: not followed.
          out.opaque = `env ${v} is not followed by the permission checker`;
          return undefined;
        }
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
          out.envAssignments.push(v.slice(0, v.indexOf("=")));
          continue;
        }
        break;
      }
      return i < words.length ? { words: words.slice(i) } : undefined;
    }
    case "sudo":
    case "doas": {
      const withArg = new Set([
        "-u",
        "-g",
        "-h",
        "-p",
        "-C",
        "-D",
        "-r",
        "-t",
        "-T",
        "-U",
        "--user",
        "--group",
      ]);
      const rest = skipOptions(words, 1, withArg);
      const shellFlags = words
        .slice(1, rest)
        .some((w) => /^-[^-]*[sie]/.test(w.value) || w.value === "--shell");
      if (rest === undefined || shellFlags || rest >= words.length) {
        out.opaque = `${name} without a plain command to run`;
        out.elevated = true;
        return undefined;
      }
      out.elevated = true;
      return { words: words.slice(rest) };
    }
    case "timeout": {
      const rest = skipOptions(words, 1, new Set(["-s", "-k", "--signal", "--kill-after"]));
      if (rest === undefined || rest + 1 >= words.length) return undefined;
      return { words: words.slice(rest + 1) };
    }
    case "nice": {
      const rest = skipOptions(words, 1, new Set(["-n", "--adjustment"]));
      return rest !== undefined && rest < words.length ? { words: words.slice(rest) } : undefined;
    }
    case "nohup":
    case "time":
    case "exec":
    case "builtin": {
      const rest = skipOptions(words, 1, new Set());
      return rest !== undefined && rest < words.length ? { words: words.slice(rest) } : undefined;
    }
    case "command": {
      // `command -v x` only looks a name up.
      if (words.slice(1).some((w) => w.value === "-v" || w.value === "-V")) return undefined;
      const rest = skipOptions(words, 1, new Set());
      return rest !== undefined && rest < words.length ? { words: words.slice(rest) } : undefined;
    }
    case "stdbuf": {
      const rest = skipOptions(words, 1, new Set(["-i", "-o", "-e", "--input", "--output", "--error"]));
      return rest !== undefined && rest < words.length ? { words: words.slice(rest) } : undefined;
    }
    case "xargs": {
      const withArg = new Set(["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-procs"]);
      const rest = skipOptions(words, 1, withArg);
      if (rest === undefined) {
        out.opaque = "xargs with options only known when the shell runs";
        return undefined;
      }
      if (words.slice(1, rest).some((w) => /^(-a|--arg-file)/.test(w.value))) {
        out.opaque = "xargs reading its arguments from a file";
        return undefined;
      }
      out.appendsArgs = true;
      // Bare `xargs` runs echo.
      return rest < words.length ? { words: words.slice(rest) } : { words: [lit("echo")] };
    }
    case "eval": {
      const args = words.slice(1);
      if (args.some((w) => !w.static)) {
        out.opaque = "eval of text only known when the shell runs";
        return undefined;
      }
      out.script = lit(args.map((w) => w.value).join(" "));
      return undefined;
    }
    case "find":
      collectFindExec(words, out);
      return undefined;
    case "source":
    case ".":
      out.opaque = `${name} runs the commands in ${words[1]?.raw ?? "a file"}`;
      return undefined;
    default:
      if (SHELLS.has(name)) return shellInvocation(name, words, out);
      return undefined;
  }
}

function lit(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}

function shellInvocation(name: string, words: ShellWord[], out: Unwrapped): undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static) break;
    if (w.value === "--") break;
    // -c may be combined with other single-letter flags: `bash -lc '…'`, `sh -ec '…'`.
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.value)) {
      const script = words[i + 1];
      if (!script) break;
      if (!script.static) {
        out.opaque = `${name} -c with a script only known when the shell runs`;
        return undefined;
      }
      out.script = script;
      return undefined;
    }
    if (w.value.startsWith("-") || w.value.startsWith("+")) continue;
    out.opaque = `${name} runs the script file ${w.raw}`;
    return undefined;
  }
  out.opaque = `${name} reads commands from its input`;
  return undefined;
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function collectFindExec(words: ShellWord[], out: Unwrapped): void {
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.value)) continue;
    const start = i + 1;
    let end = start;
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++;
    if (end > start) out.extras.push(words.slice(start, end));
    i = end;
  }
}
