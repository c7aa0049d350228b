// git on the command line: its global options (seen through for deny rules, judged for reads) and
// the subcommands that only read, with the options that make them run a program or write a file.
// Read from git(1), git-log(1), git-diff(1), git-grep(1), git-blame(1), git-cat-file(1),
// git-config(1), git-branch(1), git-tag(1) of git 2.39.5 (Debian 12).
import { configKeyRisk } from "../git-repo.js";
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

/**
 * `status` and `diff` refresh the index and may write it, which runs the post-index-change hook
 * (git-hooks.ts): "optional" when --no-optional-locks or GIT_OPTIONAL_LOCKS=0 stops that.
 */
export type IndexRefresh = "optional" | "always";

export type GitReadVerdict =
  | {
      readOnly: true;
      reads: ShellWord[];
      writes: ShellWord[];
      dirs: ShellWord[];
      refreshesIndex?: IndexRefresh;
    }
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
  const refresh: IndexRefresh | undefined =
    sub.value === "status"
      ? line.globals.some((g) => g.name === "--no-optional-locks")
        ? undefined
        : "optional"
      : sub.value === "diff" && !rest.some((a) => /^--(cached|staged|no-index)$/.test(a.value))
        ? "always"
        : undefined;
  return { readOnly: true, reads, writes, dirs, ...(refresh ? { refreshesIndex: refresh } : {}) };
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

/** git 2.39's own commands (`git --list-cmds=builtins,main`): no alias can stand in for them. */
const GIT_COMMANDS = new Set(
  [
    "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore",
    "check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit",
    "commit-graph commit-tree config count-objects credential credential-cache credential-store daemon",
    "describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch",
    "fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects gc",
    "get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push imap-send index-pack",
    "init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit",
    "maintenance merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours",
    "merge-recursive merge-resolve merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv",
    "name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push",
    "quiltimport range-diff read-tree rebase receive-pack reflog remote repack replace request-pull",
    "rerere reset restore rev-list rev-parse revert rm send-pack shell shortlog show show-branch",
    "show-index show-ref sparse-checkout stage stash status stripspace submodule subtree switch",
    "symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info",
    "upload-archive upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree",
    "write-tree",
  ]
    .join(" ")
    .split(" "),
);

/** Keys whose value is a command line git runs: judged as a script when it is known. */
const PROGRAM_KEYS =
  /^(core\.pager|core\.editor|sequence\.editor|core\.sshcommand|diff\.external|gpg\.program|pager\..+)$/i;

/** What peeling `git [globals] sub …` found (see wrappers.ts: Unwrapped). */
export interface GitPeel {
  /** `git sub …` with the globals removed (an alias replaced by what it stands for). */
  words?: ShellWord[];
  transparent: boolean;
  globals: ShellWord[];
  /** A `!` alias given with -c: the shell command line it runs. */
  script?: ShellWord;
  /** Command lines configuration given with -c makes git run (core.pager, diff.external, …). */
  extras: ShellWord[][];
  /** Why what git runs cannot be known (a config key naming a program, an unknown subcommand). */
  dynamic?: string;
}

const HARMLESS_PEEL = new Set([
  "--no-pager",
  "-P",
  "--no-optional-locks",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-replace-objects",
]);

function literal2(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}

/**
 * `git [global options] SUB …` → `git SUB …`, so deny rules for `git push` see `git -C x push`.
 * Configuration given on the command line is read too: `-c alias.x='!cmd'` makes `git x` run
 * cmd, `-c core.pager=cmd` runs cmd; a subcommand that is none of git's own is an alias or a
 * `git-NAME` program, which the checker cannot see.
 */
export function peelGitLine(words: ShellWord[]): GitPeel {
  const line = splitGit(words.slice(1));
  const out: GitPeel = { transparent: true, globals: [], extras: [] };
  const aliases = new Map<string, ShellWord>();
  for (const g of line.globals) {
    out.globals.push(literal2(g.name));
    if (g.value) out.globals.push(g.value);
    if (!HARMLESS_PEEL.has(g.name)) out.transparent = false;
    if (g.name === "--exec-path" && g.value !== undefined)
      out.dynamic ??= "git --exec-path= runs git's commands from another directory";
    if (g.name !== "-c" && g.name !== "--config-env") continue;
    const setting = g.value;
    if (!setting?.static) {
      out.dynamic ??= `git ${g.name} with a setting only known when the shell runs`;
      continue;
    }
    const eq = setting.value.indexOf("=");
    const key = eq === -1 ? setting.value : setting.value.slice(0, eq);
    const value = eq === -1 ? "true" : setting.value.slice(eq + 1);
    if (/^alias\./i.test(key)) {
      if (g.name === "--config-env")
        out.dynamic ??= `git --config-env ${key} takes the alias from a variable`;
      else aliases.set(key.slice("alias.".length), literal2(value));
      continue;
    }
    if (configKeyRisk(key, value) === undefined) continue;
    if (g.name === "-c" && PROGRAM_KEYS.test(key)) out.extras.push(shellWords(value));
    else out.dynamic ??= `git ${g.name} ${key} names a program or file the checker cannot follow`;
  }
  if (line.sub === undefined) return out;
  const args = words.slice(line.sub + 1 + 1);
  const sub = words[line.sub + 1]!;
  if (!sub.static) {
    out.dynamic ??= "the git subcommand is only known when the shell runs";
    return out;
  }
  const alias = aliases.get(sub.value);
  if (alias) {
    out.transparent = false;
    if (alias.value.startsWith("!")) {
      out.script = literal2([alias.value.slice(1), ...args.map((a) => a.raw)].join(" "));
      return out;
    }
    out.words = [words[0]!, ...shellWords(alias.value), ...args];
    return out;
  }
  if (!GIT_COMMANDS.has(sub.value))
    out.dynamic ??= `git ${sub.value} is not one of git's commands: an alias or a git-${sub.value} program runs`;
  if (line.globals.length > 0) out.words = [words[0]!, ...words.slice(line.sub + 1)];
  return out;
}

/** Words of a configuration value the way git splits an alias (blanks; quotes are not followed). */
function shellWords(text: string): ShellWord[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => (/['"\\$`]/.test(w) ? { value: w, static: false, raw: w, tilde: false } : literal2(w)));
}

/** Where `git config` (not reading) writes: the repository's config, a scope's file, or a named file. */
export type GitConfigTarget =
  | { scope: "local" | "worktree" | "global" | "system" }
  | { scope: "file"; file: ShellWord }
  | { scope: "unknown" };

/** The file `git … config …` writes, or undefined when it only reads (or is not `git config`). */
export function gitConfigWrite(args: readonly ShellWord[]): GitConfigTarget | undefined {
  const line = splitGit(args);
  if (line.sub === undefined || args[line.sub]?.value !== "config") return undefined;
  if (classifyGit(args).readOnly) return undefined;
  const rest = args.slice(line.sub + 1);
  if (rest.length === 0) return undefined;
  for (let i = 0; i < rest.length; i++) {
    const v = rest[i]!.value;
    if (!rest[i]!.static) return { scope: "unknown" };
    if (v === "--global") return { scope: "global" };
    if (v === "--system") return { scope: "system" };
    if (v === "--worktree") return { scope: "worktree" };
    if (v === "-f" || v === "--file")
      return rest[i + 1] ? { scope: "file", file: rest[i + 1]! } : { scope: "unknown" };
    if (v.startsWith("--file=")) return { scope: "file", file: literal(v.slice("--file=".length)) };
    if (v === "--blob" || v.startsWith("--blob=")) return undefined;
  }
  return { scope: "local" };
}
