// Reads a command's argv the way its option parser would (GNU getopt_long: clustered short
// options, attached or separate values, `--`, unique prefixes of long options), against a table
// saying what each option does, so the checker knows which words are paths read or written and
// whether an option runs a program.

import { err, ok, type Result } from "neverthrow";
import type { ShellWord } from "./parser.js";

/**
 * What an option does. Those ending in a value kind take one:
 * - flag: nothing the checker cares about; optional: a harmless value, only when attached (`--color=auto`)
 * - value: a harmless value (a count, a pattern, a format)
 * - read / write: the value is a path the command reads / writes
 * - run: the value is a program or command line the command runs
 * - names: the value is a file of names the command then reads (they cannot be checked)
 * - script: the value is a program text the command runs (checked by the command's own rule)
 * - scriptFile: the value is a file of program text (cannot be checked)
 * - writes / runs / follows / lists: flags that make the command write files it picks, run
 *   programs, follow symlinks while walking, or read names from its operands
 * - writesOptional: like writes, with an optional attached value (`-i.bak`, `--profile=f`)
 * - nofollow: cancels `follows` (diff --no-dereference)
 * - unsupported: an option the checker does not follow
 */
export type OptionKind =
  | "flag"
  | "optional"
  | "value"
  | "read"
  | "write"
  | "run"
  | "names"
  | "script"
  | "scriptFile"
  | "writes"
  | "writesOptional"
  | "runs"
  | "follows"
  | "lists"
  | "nofollow"
  | "unsupported";

const TAKES_VALUE: ReadonlySet<OptionKind> = new Set([
  "value",
  "read",
  "write",
  "run",
  "names",
  "script",
  "scriptFile",
]);
const OPTIONAL_VALUE: ReadonlySet<OptionKind> = new Set(["optional", "writesOptional"]);
/** When an abbreviation matches several options, assume the one that matters most. */
const SEVERITY: OptionKind[] = [
  "unsupported",
  "run",
  "runs",
  "scriptFile",
  "script",
  "write",
  "writes",
  "writesOptional",
  "names",
  "lists",
  "follows",
  "read",
  "value",
  "optional",
  "nofollow",
  "flag",
];

export interface OptionTable {
  short: Map<string, OptionKind>;
  long: Map<string, OptionKind>;
}

/**
 * Builds a table from lines like `"-o --output: write"`: the names, then the kind (default flag).
 * Short names are one character after `-`; anything after `--` is a long name.
 * Parsed on first use: the ~60 tables are module constants, and a start that judges no command
 * (every print run's first request) should not pay for them.
 */
export function optionTable(lines: readonly string[]): OptionTable {
  let built: OptionTable | undefined;
  const table = () => (built ??= parseOptionLines(lines));
  return {
    get short() {
      return table().short;
    },
    get long() {
      return table().long;
    },
  };
}

function parseOptionLines(lines: readonly string[]): OptionTable {
  const table: OptionTable = { short: new Map(), long: new Map() };
  for (const line of lines) {
    const colon = line.lastIndexOf(": ");
    const kind = (colon === -1 ? "flag" : line.slice(colon + 2).trim()) as OptionKind;
    if (!SEVERITY.includes(kind)) throw new Error(`unknown option kind in "${line}"`);
    for (const name of (colon === -1 ? line : line.slice(0, colon)).split(/\s+/).filter(Boolean)) {
      if (name.startsWith("--")) table.long.set(name.slice(2), kind);
      else if (/^-.$/.test(name)) table.short.set(name.slice(1), kind);
      else throw new Error(`bad option name "${name}" in "${line}"`);
    }
  }
  return table;
}

export interface OptionUse {
  /** As written in the table: `-o` or `--output`. */
  name: string;
  kind: OptionKind;
  /** The option's value, when it takes one and got one. */
  value?: ShellWord;
}

export interface ScanOptions {
  /** Options end at the first operand (POSIX; awk, find-like syntaxes); default: GNU permutation. */
  stopAtOperand?: boolean;
  /** `-5` / `-20` is an option on its own (head, tail, grep's context). */
  numbers?: boolean;
  /**
   * Words only known at run time may stand where options go: `$X` could be `--pre=…`. Only for
   * commands none of whose options matter (the default refuses them before `--`).
   */
  dynamicWords?: boolean;
}

/** Why argv could not be split: an option the table does not know, a value missing or not taken. */
export interface ScanError {
  type: "unscannable";
  message: string;
  /** It failed on a word only known at run time (which may also be a path). */
  dynamic?: true;
}

export type Scan = Result<{ options: OptionUse[]; operands: ShellWord[] }, ScanError>;

const unscannable = (message: string, dynamic?: true): Scan =>
  err({ type: "unscannable", message, ...(dynamic ? { dynamic } : {}) });

/** Splits argv (without the command name) into options and operands, or says why it cannot. */
export function scanOptions(
  args: readonly ShellWord[],
  table: OptionTable,
  settings: ScanOptions = {},
): Scan {
  const options: OptionUse[] = [];
  const operands: ShellWord[] = [];
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (onlyOperands || !word.static || !v.startsWith("-") || v === "-") {
      // A word only known at run time may turn out to be an option, any option.
      if (!onlyOperands && !word.static && !settings.dynamicWords)
        return unscannable(`${word.raw} is only known when the shell runs and may be an option`, true);
      if (word.glob !== undefined && word.value.startsWith("-"))
        return unscannable(`the glob ${word.raw} may expand to options`);
      operands.push(word);
      if (settings.stopAtOperand) onlyOperands = true;
      continue;
    }
    if (v === "--") {
      onlyOperands = true;
      continue;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq === -1 ? v.slice(2) : v.slice(2, eq);
      const kind = longKind(table, name);
      if (kind === undefined) return unscannable(`the option --${name} is not in the checker's table`);
      const use: OptionUse = { name: `--${kind.name}`, kind: kind.kind };
      if (eq !== -1) {
        if (!TAKES_VALUE.has(kind.kind) && !OPTIONAL_VALUE.has(kind.kind))
          return unscannable(`--${name} takes no value`);
        use.value = sliced(word, eq + 1);
      } else if (TAKES_VALUE.has(kind.kind)) {
        const next = args[++i];
        if (next === undefined) return unscannable(`--${name} needs a value`);
        use.value = next;
      }
      options.push(use);
      continue;
    }
    if (settings.numbers && /^-\d+$/.test(v)) {
      options.push({ name: v, kind: "value" });
      continue;
    }
    // A cluster of short options: `-rn`, `-A3`, `-ofile`, `-uo file`.
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!;
      const kind = table.short.get(letter);
      if (kind === undefined) {
        if (settings.numbers && /\d/.test(letter)) continue;
        return unscannable(`the option -${letter} is not in the checker's table`);
      }
      const use: OptionUse = { name: `-${letter}`, kind };
      if (TAKES_VALUE.has(kind)) {
        if (j + 1 < v.length) use.value = sliced(word, j + 1);
        else {
          const next = args[++i];
          if (next === undefined) return unscannable(`-${letter} needs a value`);
          use.value = next;
        }
        options.push(use);
        break;
      }
      if (OPTIONAL_VALUE.has(kind) && j + 1 < v.length) {
        use.value = sliced(word, j + 1);
        options.push(use);
        break;
      }
      options.push(use);
    }
  }
  return ok({ options, operands });
}

/** The exact name, else getopt_long's unique-prefix match (an ambiguous one: the worst candidate). */
function longKind(table: OptionTable, name: string): { name: string; kind: OptionKind } | undefined {
  const exact = table.long.get(name);
  if (exact !== undefined) return { name, kind: exact };
  if (name === "") return undefined;
  const candidates = [...table.long].filter(([full]) => full.startsWith(name));
  if (candidates.length === 0) return undefined;
  candidates.sort((a, b) => SEVERITY.indexOf(a[1]) - SEVERITY.indexOf(b[1]));
  const [full, kind] = candidates[0]!;
  return { name: full, kind };
}

/**
 * The part of a word after `at` characters of its value, as its own word. Bash expands neither
 * `~` nor globs there (`--file=~/x` names a file called `~/x`), so it is literal text.
 */
function sliced(word: ShellWord, at: number): ShellWord {
  const value = word.value.slice(at);
  return { value, static: word.static, raw: word.static ? value : word.raw, tilde: false };
}
