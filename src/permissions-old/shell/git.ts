// git on the command line: its global options (seen through for deny rules, judged for reads) and
// the subcommands that only read, with the options that make them run a program or write a file.
// Read from git(1), git-log(1), git-diff(1), git-grep(1), git-blame(1), git-cat-file(1),
// git-config(1), git-branch(1), git-tag(1) of git 2.39.5 (Debian 12).
import type { ShellWord } from "./parser.js";

export interface GitGlobal {
  name: string;
  value?: ShellWord;
}

export interface GitLine {
  globals: GitGlobal[];
  /** Index of the subcommand in the argv given (undefined: none, e.g. `git --version`). */
  sub?: number;
}

/** Global options that change nothing about which repository or which programs git uses. */
const HARMLESS_GLOBALS = new Set([
  "--no-pager",
  "-P",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--version",
  "-v",
  "--help",
  "-h",
  "--html-path",
  "--man-path",
  "--info-path",
]);
/** Global options whose value is the next word (or, for the long ones, after `=`). */
const GLOBALS_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
]);

/** Splits `git [globals] sub args…` (argv without `git`); unknown globals are kept as flags. */
export function splitGit(args: readonly ShellWord[]): GitLine {
  const globals: GitGlobal[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.static || !w.value.startsWith("-")) return { globals, sub: i };
    const eq = w.value.indexOf("=");
    const name = eq === -1 ? w.value : w.value.slice(0, eq);
    if (eq !== -1 && name.startsWith("--")) {
      const value = w.value.slice(eq + 1);
      globals.push({ name, value: { value, static: true, raw: value, tilde: false } });
      continue;
    }
    if (GLOBALS_WITH_VALUE.has(name)) {
      const value = args[i + 1];
      globals.push(value ? { name, value } : { name });
      i++;
      continue;
    }
    globals.push({ name });
  }
  return { globals };
}

/** Why a global option makes a git read unsafe, or undefined when it is harmless. */
export function globalRisk(g: GitGlobal): string | undefined {
  if (HARMLESS_GLOBALS.has(g.name)) return undefined;
  if (g.name === "--exec-path" && g.value === undefined) return undefined; // prints the path
  switch (g.name) {
    case "-C":
      return undefined; // judged by where it leads
    case "-c":
    case "--config-env":
      return `git ${g.name} injects configuration, which can name programs to run`;
    case "--git-dir":
    case "--work-tree":
    case "--bare":
    case "--namespace":
    case "--super-prefix":
      return `git ${g.name} points git at another repository or work tree`;
    case "--exec-path":
      return "git --exec-path= runs git's commands from another directory";
    case "-p":
    case "--paginate":
      return `git ${g.name} runs a pager`;
    default:
      return `the git option ${g.name} is not one the checker knows`;
  }
}

interface ReadSpec {
  /** Long options (and prefixes of them, as git's option parser accepts) that run a program. */
  runs?: string[];
  /** Long options whose value is a file written. */
  writes?: string[];
  /** Short options that run (`-O` of grep), alone or in a cluster. */
  runsShort?: string[];
  /** Options whose value is a file read. */
  reads?: string[];
  /** Only read with one of these options (branch, tag, config). */
  needs?: RegExp;
  /** Never read with one of these. */
  never?: RegExp;
  /** Operands are not paths (names of refs, config keys). */
  noPaths?: boolean;
  /** Only read when the word after the subcommand is one of these (stash list, worktree list). */
  verbs?: string[];
  /** With `verbs`: the subcommand alone reads too (`git remote` lists; `git stash` alone pushes). */
  bareReads?: boolean;
}

const DIFF_LIKE: ReadSpec = {
  // --textconv and --ext-diff run drivers the configuration names; gpg verifies signatures.
  runs: ["--ext-diff", "--textconv", "--show-signature"],
  writes: ["--output"],
};

export const GIT_READS: Record<string, ReadSpec> = {
  status: {},
  log: DIFF_LIKE,
  whatchanged: DIFF_LIKE,
  show: DIFF_LIKE,
  diff: DIFF_LIKE,
  "diff-tree": DIFF_LIKE,
  "diff-files": DIFF_LIKE,
  "diff-index": DIFF_LIKE,
  shortlog: DIFF_LIKE,
  reflog: { ...DIFF_LIKE, never: /^(expire|delete|exists)$/ },
  blame: { runs: ["--textconv"], reads: ["--contents", "--ignore-revs-file", "-S"] },
  annotate: { runs: ["--textconv"], reads: ["--contents", "--ignore-revs-file", "-S"] },
  grep: { runs: ["--open-files-in-pager", "--textconv"], runsShort: ["O"], reads: ["-f"] },
  "ls-files": {},
  "ls-tree": {},
  "rev-parse": {},
  "rev-list": {},
  describe: {},
  "cat-file": { runs: ["--textconv", "--filters"] },
  "show-ref": { noPaths: true },
  "for-each-ref": { noPaths: true },
  "name-rev": { noPaths: true },
  "merge-base": { noPaths: true },
  "count-objects": {},
  "check-ignore": {},
  "check-attr": {},
  var: { noPaths: true },
  version: {},
  branch: {
    needs: /^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--show-current|--verbose)$/,
    never:
      /^(-d|-D|-m|-M|-c|-C|-f|-u|--delete|--move|--copy|--force|--set-upstream-to|--unset-upstream|--edit-description|--track|--no-track|--create-reflog)/,
    noPaths: true,
  },
  tag: {
    needs: /^(-l|--list)$/,
    never:
      /^(-a|-s|-u|-f|-d|-v|-m|-F|-e|--annotate|--sign|--local-user|--force|--delete|--verify|--message|--file|--edit|--create-reflog)/,
    noPaths: true,
  },
  remote: { verbs: ["-v", "--verbose", "get-url"], bareReads: true, noPaths: true },
  stash: { verbs: ["list", "show"], ...DIFF_LIKE },
  worktree: { verbs: ["list"], noPaths: true },
  config: {
    needs: /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list)$/,
    never:
      /^(-e|--edit|--add|--replace-all|--unset|--unset-all|--rename-section|--remove-section|--includes)$/,
    reads: ["-f", "--file"],
    noPaths: true,
  },
};

export type GitReadVerdict =
  | { readOnly: true; reads: ShellWord[]; writes: ShellWord[]; dirs: ShellWord[] }
  | { readOnly: false; reason?: string };

/** Judges `git …` (argv without `git`) as a read: the repository and its config are judged elsewhere. */
export function classifyGit(args: readonly ShellWord[]): GitReadVerdict {
  const line = splitGit(args);
  const dirs: ShellWord[] = [];
  for (const g of line.globals) {
    const risk = globalRisk(g);
    if (risk) return { readOnly: false, reason: risk };
    if (g.name === "-C") {
      if (!g.value) return { readOnly: false };
      dirs.push(g.value);
    }
  }
  if (line.sub === undefined) return { readOnly: true, reads: [], writes: [], dirs };
  const sub = args[line.sub]!;
  if (!sub.static) return { readOnly: false, reason: "the git subcommand is only known when the shell runs" };
  const spec = GIT_READS[sub.value];
  if (!spec) return { readOnly: false };
  const rest = args.slice(line.sub + 1);
  if (spec.verbs) {
    const verb = rest[0];
    if (verb === undefined ? !spec.bareReads : !(verb.static && spec.verbs.includes(verb.value)))
      return { readOnly: false };
  }
  if (spec.never && rest.some((a) => spec.never!.test(a.value))) return { readOnly: false };
  if (spec.needs) {
    const needs = spec.needs;
    const operands = rest.filter((a) => !a.value.startsWith("-"));
    if (operands.length > 0 && !rest.some((a) => needs.test(a.value))) return { readOnly: false };
  }
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (!a.static) {
      if (!spec.noPaths) reads.push(a);
      continue;
    }
    const v = a.value;
    if (v === "--") {
      reads.push(...rest.slice(i + 1));
      break;
    }
    if (!v.startsWith("-") || v === "-") {
      if (!spec.noPaths) reads.push(a);
      continue;
    }
    const eq = v.indexOf("=");
    const name = eq === -1 ? v : v.slice(0, eq);
    const attached = eq === -1 ? undefined : literal(v.slice(eq + 1));
    if (name.startsWith("--")) {
      const runs = (spec.runs ?? []).find((r) => abbreviates(name, r));
      if (runs) return { readOnly: false, reason: `git ${sub.value} ${runs} runs a program` };
      const target = (spec.writes ?? []).find((w) => abbreviates(name, w));
      if (target) {
        const value = attached ?? rest[++i];
        if (!value) return { readOnly: false };
        writes.push(value);
        continue;
      }
      if ((spec.reads ?? []).includes(name)) {
        const value = attached ?? rest[++i];
        if (value) reads.push(value);
      }
      continue;
    }
    // Short options, possibly clustered: `-nO./x` is -n and -O with a value.
    const letters = v.slice(1);
    const runShort = (spec.runsShort ?? []).find((s) => letters.includes(s));
    if (runShort) return { readOnly: false, reason: `git ${sub.value} -${runShort} runs a program` };
    if ((spec.reads ?? []).includes(v)) {
      const value = rest[++i];
      if (value) reads.push(value);
    }
  }
  // `git config` prints the user's and the system's config files unless told one scope.
  if (
    sub.value === "config" &&
    !rest.some((a) => /^(--local|--worktree|-f|--file|--blob)(=|$)/.test(a.value))
  )
    reads.push(...["~/.gitconfig", "~/.config/git/config", "/etc/gitconfig"].map(tildeWord));
  return { readOnly: true, reads, writes, dirs };
}

function tildeWord(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: value.startsWith("~") };
}

/** `--out` abbreviates `--output` (git accepts unique prefixes); `--text` is an option of its own. */
function abbreviates(written: string, full: string): boolean {
  if (written === full) return true;
  if (written === "--text" || written.length < 4) return false;
  return full.startsWith(written);
}

function literal(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}
