// Which commands only read (and which of their words are paths), and which are never auto-allowed.
import type { ShellWord } from "./parser.js";
import { commandName, INTERPRETERS } from "./wrappers.js";

/** Commands that read at most, whose non-option arguments are paths to check. Kept short on purpose. */
const READS_PATHS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "find",
  "file",
  "stat",
  "du",
  "tree",
  "diff",
  "cmp",
  "sort",
  "cut",
  "nl",
  "realpath",
  "readlink",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "which",
  "type",
  "cd",
  "pushd",
]);

/** Commands that touch no file named by their arguments. */
const NO_PATHS = new Set([
  "echo",
  "printf",
  "pwd",
  "true",
  "false",
  "whoami",
  "id",
  "uname",
  "basename",
  "dirname",
  "seq",
  "sleep",
  "test",
  "[",
  "tr",
  "popd",
]);

/** Options that make an otherwise read-only command write a file or run a program. */
const WRITING_OPTIONS: Record<string, RegExp> = {
  sort: /^(-o|--output)/,
  tree: /^-o/,
  rg: /^(--pre|--search-zip|-z)/,
  file: /^-C/,
  find: /^-(delete|fprint|fprint0|fprintf|fls)$/,
};

/** `git` subcommands that only read, with the options that would turn them into writers. */
const GIT_READS: Record<string, { onlyWith?: RegExp; never?: RegExp }> = {
  status: {},
  log: { never: /^(--output|--ext-diff|--textconv)/ },
  diff: { never: /^(--output|--ext-diff|--textconv)/ },
  show: { never: /^(--output|--ext-diff|--textconv)/ },
  blame: {},
  "ls-files": {},
  "rev-parse": {},
  describe: {},
  shortlog: {},
  grep: { never: /^(-O|--open-files-in-pager)/ },
  branch: { onlyWith: /^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--show-current|--verbose)$/ },
  tag: { onlyWith: /^(-l|--list)$/ },
  remote: { onlyWith: /^(-v|--verbose)$/ },
};

export type ReadOnlyVerdict = { readOnly: true; paths: ShellWord[] } | { readOnly: false };

export function classifyReadOnly(words: ShellWord[]): ReadOnlyVerdict {
  const name = commandName(words[0]);
  if (!name) return { readOnly: false };
  const args = words.slice(1);
  if (NO_PATHS.has(name)) return { readOnly: true, paths: [] };
  if (name === "git") return classifyGit(args);
  if (!READS_PATHS.has(name)) return { readOnly: false };
  const writing = WRITING_OPTIONS[name];
  if (writing && args.some((a) => writing.test(a.value))) return { readOnly: false };
  return { readOnly: true, paths: pathArguments(name === "find" ? withoutFindExec(args) : args) };
}

function classifyGit(args: ShellWord[]): ReadOnlyVerdict {
  const paths: ShellWord[] = [];
  let i = 0;
  // Only harmless global options: `-c core.pager=…` or `--exec-path` could run anything.
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--no-pager") continue;
    if (v === "-C" && args[i + 1]) {
      paths.push(args[++i]!);
      continue;
    }
    break;
  }
  const sub = args[i];
  if (!sub?.static) return { readOnly: false };
  const spec = GIT_READS[sub.value];
  if (!spec) {
    if (sub.value === "stash" && args[i + 1]?.value === "list") return { readOnly: true, paths };
    return { readOnly: false };
  }
  const rest = args.slice(i + 1);
  if (spec.never && rest.some((a) => spec.never!.test(a.value))) return { readOnly: false };
  const onlyWith = spec.onlyWith;
  if (onlyWith && rest.some((a) => !onlyWith.test(a.value))) return { readOnly: false };
  return { readOnly: true, paths: [...paths, ...pathArguments(rest)] };
}

function withoutFindExec(args: ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    if (/^-(exec|execdir|ok|okdir)$/.test(args[i]!.value)) {
      while (i < args.length && args[i]!.value !== ";" && args[i]!.value !== "+") i++;
      continue;
    }
    out.push(args[i]!);
  }
  return out;
}

/**
 * Every non-option word may be a path (a grep pattern too: over-checking only costs a prompt).
 * `--opt=value` values that look like paths are checked as well.
 */
function pathArguments(args: ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (const a of args) {
    if (!a.static) {
      out.push(a);
      continue;
    }
    if (a.value.startsWith("-") && a.value !== "-") {
      const eq = a.value.indexOf("=");
      const v = eq === -1 ? "" : a.value.slice(eq + 1);
      if (/^[~./]/.test(v)) out.push({ value: v, static: true, raw: v, tilde: v.startsWith("~") });
      continue;
    }
    out.push(a);
  }
  return out;
}

/** A resolved-path oracle so this file stays free of filesystem access. */
export interface PathFacts {
  isRootOrHome(word: ShellWord): boolean;
  isSensitiveWrite(word: ShellWord): boolean;
}

const RECURSIVE = /^(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)$/;
const SYSTEM_DIRS =
  /^\/(bin|boot|dev|etc|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var|home|Users|System|Library)\/?$/;

/** Why this command must never be allowed by a prefix rule or a mode; undefined when it is ordinary. */
export function dangerReason(words: ShellWord[], pipedInput: boolean, facts: PathFacts): string | undefined {
  const name = commandName(words[0]);
  if (!name) return undefined;
  const args = words.slice(1);
  const operands = args.filter((a) => !a.static || !a.value.startsWith("-"));
  if (
    pipedInput &&
    INTERPRETERS.has(name) &&
    operands.length === 0 &&
    !args.some((a) => a.value === "-c" || a.value === "-e")
  ) {
    return `pipes text into ${name}, which runs it as code`;
  }
  if (name === "rm") {
    if (args.some((a) => a.value === "--no-preserve-root")) return "rm --no-preserve-root";
    if (args.some((a) => RECURSIVE.test(a.value))) {
      const risky = operands.find(
        (a) =>
          !a.static ||
          facts.isRootOrHome(a) ||
          SYSTEM_DIRS.test(a.value) ||
          /^(\*|\.\/?\*?|\.\.\/?|\/\*)$/.test(a.value),
      );
      if (risky) return `rm -r of ${risky.raw} would delete far more than a project file`;
    }
  }
  if (name === "git") {
    const sub = args.find((a) => !a.value.startsWith("-"));
    const rest = sub ? args.slice(args.indexOf(sub) + 1) : [];
    if (sub?.value === "push") {
      const force = rest.find(
        (a) =>
          /^(--force|--force-with-lease|--mirror|--delete|-[a-zA-Z]*[fd][a-zA-Z]*)(=.*)?$/.test(a.value) ||
          /^[+:]/.test(a.value),
      );
      if (force) return `git push ${force.raw} rewrites or deletes remote history`;
    }
    if (sub?.value === "reset" && rest.some((a) => a.value === "--hard"))
      return "git reset --hard discards work";
    if (sub?.value === "clean" && rest.some((a) => /^-[a-zA-Z]*f/.test(a.value) || a.value === "--force")) {
      return "git clean -f deletes untracked files";
    }
  }
  if (
    /^mkfs(\..*)?$/.test(name) ||
    ["fdisk", "parted", "shutdown", "reboot", "halt", "poweroff"].includes(name)
  ) {
    return `${name} changes the machine, not the project`;
  }
  if (name === "dd" && args.some((a) => a.value.startsWith("of=/dev/"))) return "dd onto a device";
  if ((name === "chmod" || name === "chown") && args.some((a) => RECURSIVE.test(a.value))) {
    if (operands.some((a) => facts.isRootOrHome(a) || SYSTEM_DIRS.test(a.value)))
      return `${name} -R on a system or home directory`;
  }
  const sensitive = operands.find((a) => facts.isSensitiveWrite(a));
  if (sensitive && classifyReadOnly(words).readOnly === false) {
    return `may write ${sensitive.raw}, a file that runs code or holds credentials`;
  }
  return undefined;
}
