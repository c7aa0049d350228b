// Which commands only read (and which of their words are paths read or written), by the table in
// readers.ts and the rules for find, tar and git; and which commands are never auto-allowed.
import { classifyGit, type IndexRefresh } from "./git.js";
import { optionTable, scanOptions } from "./options.js";
import type { ShellWord } from "./parser.js";
import { NOT_READERS, READERS, type ReaderSpec } from "./readers.js";
import { checkAwkProgram, checkSedScript } from "./scripts.js";
import { commandName, INTERPRETERS, systemName } from "./wrappers.js";

export type ReadOnlyVerdict =
  | {
      readOnly: true;
      /** Paths it reads. */
      reads: ShellWord[];
      /** Paths it writes (sort -o, find -fprint): judged as edits. */
      writes: ShellWord[];
      /** `cd`/`pushd`: where later commands run ("unknown" for `cd -`, `pushd +1`). */
      cd?: ShellWord | "home" | "unknown";
      /** `cd -P`: resolve the target physically (default -L: `..` collapses as written). */
      cdPhysical?: boolean;
      /** `printf -v NAME`: the variable it sets. */
      assigns?: string;
      /** git: where it runs (`-C`), so the repository can be judged, and whether it refreshes the index. */
      git?: { dirs: ShellWord[]; refreshesIndex?: IndexRefresh };
    }
  /** `unseenPath`: a reader got a word only known at run time, which may name any file. */
  | { readOnly: false; reason?: string; unseenPath?: true };

const notRead = (reason?: string): ReadOnlyVerdict => ({ readOnly: false, ...(reason ? { reason } : {}) });

export function classifyReadOnly(words: ShellWord[]): ReadOnlyVerdict {
  const name = systemName(words[0]);
  if (!name) {
    const base = commandName(words[0]);
    return notRead(
      base && (READERS.has(base) || base === "git")
        ? `${words[0]!.raw} is a file, not the system's ${base}`
        : undefined,
    );
  }
  const args = words.slice(1);
  switch (name) {
    case "cd":
    case "pushd":
    case "popd":
      return classifyCd(name, args);
    case "printf":
      return classifyPrintf(args);
    case "command":
      return args.some((a) => a.value === "-v" || a.value === "-V")
        ? { readOnly: true, reads: [], writes: [] }
        : notRead();
    case "find":
      return classifyFind(args);
    case "tar":
      return classifyTar(args);
    case "git": {
      const git = classifyGit(args);
      return git.readOnly
        ? {
            readOnly: true,
            reads: git.reads,
            writes: git.writes,
            git: { dirs: git.dirs, ...(git.refreshesIndex ? { refreshesIndex: git.refreshesIndex } : {}) },
          }
        : git;
    }
  }
  const spec = READERS.get(name);
  if (!spec) {
    const why = NOT_READERS.get(name);
    return notRead(why ? `${name} is not judged read-only (${why})` : undefined);
  }
  return classifyByTable(name, spec, args);
}

function classifyByTable(name: string, spec: ReaderSpec, args: ShellWord[]): ReadOnlyVerdict {
  if (spec.anyOption) return { readOnly: true, reads: [], writes: [] };
  const scanned = scanOptions(args, spec.options, {
    stopAtOperand: spec.stopAtOperand,
    numbers: spec.numbers,
    dynamicWords: spec.operands === "none",
  });
  if (scanned.isErr())
    return {
      ...notRead(`${name}: ${scanned.error.message}`),
      ...(scanned.error.dynamic ? { unseenPath: true as const } : {}),
    };
  const scan = scanned.value;
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  const scripts: ShellWord[] = [];
  let follows: string | undefined;
  let nofollow = false;
  for (const o of scan.options) {
    switch (o.kind) {
      case "run":
      case "runs":
        return notRead(`${name} ${o.name} runs a program`);
      case "writes":
      case "writesOptional":
        return notRead(`${name} ${o.name} writes files`);
      case "names":
      case "lists":
        return notRead(`${name} ${o.name} reads the names of further files from a file`);
      case "scriptFile":
        return notRead(`${name} ${o.name} runs a program text from a file`);
      case "unsupported":
        return notRead(`${name} ${o.name} is not followed by the checker`);
      case "follows":
        follows ??= o.name;
        break;
      case "nofollow":
        nofollow = true;
        break;
      case "read":
        if (o.value) reads.push(o.value);
        break;
      case "write":
        if (o.value) writes.push(o.value);
        break;
      case "script":
        if (o.value) scripts.push(o.value);
        break;
      default:
        break;
    }
  }
  if (follows && !nofollow)
    return notRead(`${name} ${follows} follows symbolic links, which can lead outside the workspace`);
  let operands = scan.operands;
  const supplied = scan.options.some((o) => spec.supplies?.includes(o.name));
  if (spec.operands === "none") operands = [];
  else if (spec.operands === "pattern" && !supplied) operands = operands.slice(1);
  else if (spec.operands === "script") {
    if (!supplied) {
      if (operands[0]) scripts.push(operands[0]);
      operands = operands.slice(1);
    }
    // awk's `name=value` operands are assignments, not files.
    if (name.endsWith("awk")) operands = operands.filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value));
  }
  for (const script of scripts) {
    if (!script.static) return notRead(`the ${name} program is only known when the shell runs`);
    const check = name === "sed" ? checkSedScript(script.value) : checkAwkProgram(script.value);
    if (check.isErr()) return notRead(check.error.message);
    reads.push(...check.value.map(literal));
  }
  return { readOnly: true, reads: [...reads, ...operands], writes };
}

function literal(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}

/** `cd [-L|-P|-e|-@] [dir]`, `pushd [-n] [dir|+N|-N]`, `popd [-n] [+N|-N]`. */
function classifyCd(name: string, args: ShellWord[]): ReadOnlyVerdict {
  const operands = args.filter((a) => !(a.static && /^-[LPe@n]+$/.test(a.value)) && a.value !== "--");
  if (name === "popd") return { readOnly: true, reads: [], writes: [], cd: "unknown" };
  const target = operands[0];
  if (!target) return { readOnly: true, reads: [], writes: [], cd: name === "cd" ? "home" : "unknown" };
  if (target.static && (target.value === "-" || /^[+-]\d+$/.test(target.value)))
    return { readOnly: true, reads: [], writes: [], cd: "unknown" };
  const physical = args.some(
    (a) => a.static && /^-[LPe@]*P[LPe@]*$/.test(a.value) && !/L[^P]*$/.test(a.value),
  );
  return {
    readOnly: true,
    reads: [target],
    writes: [],
    cd: target,
    ...(physical ? { cdPhysical: true } : {}),
  };
}

/** bash's printf: `-v NAME` assigns instead of printing. */
function classifyPrintf(args: ShellWord[]): ReadOnlyVerdict {
  const v = args.findIndex((a) => a.value === "-v" || (a.value.startsWith("-v") && a.value.length > 2));
  if (v === -1) return { readOnly: true, reads: [], writes: [] };
  const named = args[v]!.value === "-v" ? args[v + 1] : literal(args[v]!.value.slice(2));
  if (!named?.static) return notRead("printf -v assigns a variable named only when the shell runs");
  return { readOnly: true, reads: [], writes: [], assigns: named.value.replace(/\[.*$/, "") };
}

/**
 * find(1) findutils 4.9.0: starting points, then an expression of primaries. Each primary's
 * arity and what it does; -exec and friends are judged as commands of their own (wrappers.ts).
 */
interface FindPrimary {
  args: number;
  kind?: "read" | "write" | "writes" | "follows" | "names";
}
const FIND_PRIMARIES: Record<string, FindPrimary> = {
  ...Object.fromEntries(
    [
      "-daystart -depth -d -ignore_readdir_race -noignore_readdir_race -mount -noleaf -xdev -warn -nowarn",
      "-help --help -version --version -empty -executable -false -true -nogroup -nouser -readable -writable",
      "-print -print0 -ls -prune -quit -a -and -o -or -not ! ( ) ,",
    ]
      .join(" ")
      .split(" ")
      .map((p): [string, FindPrimary] => [p, { args: 0 }]),
  ),
  ...Object.fromEntries(
    [
      "-maxdepth -mindepth -regextype -amin -atime -cmin -ctime -mmin -mtime -used -fstype -gid -group",
      "-uid -user -ilname -iname -inum -ipath -iregex -iwholename -links -lname -name -path -perm -regex",
      "-size -type -wholename -xtype -context -printf",
    ]
      .join(" ")
      .split(" ")
      .map((p): [string, FindPrimary] => [p, { args: 1 }]),
  ),
  "-anewer": { args: 1, kind: "read" },
  "-cnewer": { args: 1, kind: "read" },
  "-newer": { args: 1, kind: "read" },
  "-samefile": { args: 1, kind: "read" },
  "-fls": { args: 1, kind: "write" },
  "-fprint": { args: 1, kind: "write" },
  "-fprint0": { args: 1, kind: "write" },
  "-fprintf": { args: 2, kind: "write" },
  "-files0-from": { args: 1, kind: "names" },
  "-delete": { args: 0, kind: "writes" },
  "-follow": { args: 0, kind: "follows" },
};
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function classifyFind(args: ShellWord[]): ReadOnlyVerdict {
  let i = 0;
  // Leading options: -P (the default), -H, -L, -D debugopts, -Olevel.
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "-P" || v === "-H") continue;
    if (v === "-L") return notRead("find -L follows symbolic links, which can lead outside the workspace");
    if (v === "-D") {
      i++;
      continue;
    }
    if (/^-O\d$/.test(v)) continue;
    break;
  }
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.static && (a.value.startsWith("-") || ["(", ")", "!", ","].includes(a.value))) break;
    reads.push(a);
  }
  if (reads.length === 0) reads.push(literal("."));
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.static) return notRead(`the find expression ${a.raw} is only known when the shell runs`);
    if (FIND_EXEC.has(a.value)) {
      while (i < args.length && args[i]!.value !== ";" && args[i]!.value !== "+") i++;
      continue;
    }
    const newer: FindPrimary | undefined = /^-newer[aBcmt][aBcm]$/.test(a.value)
      ? { args: 1, kind: "read" }
      : undefined;
    const timeRef: FindPrimary | undefined = /^-newer[aBcmt]t$/.test(a.value) ? { args: 1 } : undefined;
    const p = FIND_PRIMARIES[a.value] ?? newer ?? timeRef;
    if (!p) return notRead(`the find primary ${a.value} is not in the checker's table`);
    if (p.kind === "writes") return notRead(`find ${a.value} deletes files`);
    if (p.kind === "follows")
      return notRead(`find ${a.value} follows symbolic links, which can lead outside the workspace`);
    if (p.kind === "names") return notRead(`find ${a.value} reads the starting points from a file`);
    const value = args[i + 1];
    if (p.kind === "read" && value) reads.push(value);
    if (p.kind === "write" && value) writes.push(value);
    i += p.args;
  }
  return { readOnly: true, reads, writes };
}

/**
 * tar(1) GNU tar 1.34, listing only (-t): every other mode writes files, or reads ones the archive
 * names. Old-style `tar tvf x.tar` is rewritten into `-t -v -f x.tar` first.
 */
const TAR = optionTable([
  "-t --list -v --verbose -z --gzip --gunzip --ungzip -Z --compress --uncompress -j --bzip2 -J --xz",
  "--lzip --lzma --lzop --zstd -a --auto-compress --no-auto-compress -i --ignore-zeros",
  "-B --read-full-records -O --to-stdout --utc --full-time -R --block-number --show-omitted-dirs",
  "--show-transformed-names --show-stored-names --numeric-owner --null --no-null --unquote --no-unquote",
  "--anchored --no-anchored --ignore-case --no-ignore-case --wildcards --no-wildcards",
  "--wildcards-match-slash --no-wildcards-match-slash --recursion --no-recursion --verbatim-files-from",
  "--no-verbatim-files-from --force-local --check-device --no-check-device -n --seek --no-seek",
  "-S --sparse -G --incremental -P --absolute-names -l --check-links -w --interactive --confirmation",
  "--exclude-vcs --exclude-vcs-ignores --exclude-backups --exclude-caches --exclude-caches-all",
  "--exclude-caches-under --no-acls --no-selinux --no-xattrs --acls --selinux --xattrs",
  "--ignore-failed-read --ignore-command-error --no-ignore-command-error",
  "--occurrence --checkpoint --totals: optional",
  "-b --blocking-factor --record-size -H --format --quoting-style --quote-chars --no-quote-chars: value",
  "--strip-components --transform --xform --exclude -K --starting-file -N --newer --after-date: value",
  "--newer-mtime --exclude-tag --exclude-tag-all --exclude-tag-under --exclude-ignore: value",
  "--exclude-ignore-recursive --hole-detection --sparse-version --level -V --label --mtime: value",
  "--owner --group --mode --warning --xattrs-include --xattrs-exclude: value",
  "-f --file -T --files-from -X --exclude-from -C --directory -g --listed-incremental: read",
  "--index-file --volno-file: write",
  "-I --use-compress-program -F --info-script --new-volume-script --rsh-command --rmt-command: run",
  "--to-command --checkpoint-action: run",
  "-M --multi-volume: runs",
  "-A --catenate --concatenate -c --create -r --append -u --update -x --extract --get --delete: writes",
  "--remove-files --test-label --show-defaults: writes",
  "-d --diff --compare: lists",
]);
const TAR_VALUE_LETTERS = new Set(["b", "C", "f", "F", "g", "H", "I", "K", "L", "N", "T", "V", "X"]);

function classifyTar(args: ShellWord[]): ReadOnlyVerdict {
  let argv = args;
  const first = args[0];
  if (first?.static && !first.value.startsWith("-") && /^[A-Za-z]+$/.test(first.value)) {
    // Old style: each letter is an option; those taking a value take the next words in order.
    const expanded: ShellWord[] = [];
    let next = 1;
    for (const letter of first.value) {
      expanded.push(literal(`-${letter}`));
      if (TAR_VALUE_LETTERS.has(letter) && args[next]) expanded.push(args[next++]!);
    }
    argv = [...expanded, ...args.slice(next)];
  }
  const scanned = scanOptions(argv, TAR, {});
  if (scanned.isErr()) return notRead(`tar: ${scanned.error.message}`);
  const scan = scanned.value;
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  let listing = false;
  const forceLocal = scan.options.some((o) => o.name === "--force-local");
  for (const o of scan.options) {
    if (o.name === "-t" || o.name === "--list") listing = true;
    if (o.kind === "run" || o.kind === "runs") return notRead(`tar ${o.name} runs a program`);
    if (o.kind === "writes") return notRead(`tar ${o.name} writes files`);
    if (o.kind === "lists") return notRead(`tar ${o.name} reads the files the archive names`);
    if ((o.name === "-f" || o.name === "--file") && o.value && !forceLocal && /^[^/]*:/.test(o.value.value))
      return notRead("tar -f host:file runs a remote shell");
    if (o.kind === "read" && o.value) reads.push(o.value);
    if (o.kind === "write" && o.value) writes.push(o.value);
  }
  if (!listing) return notRead("tar only lists (-t) without asking");
  // Operands of -t are member names inside the archive, not paths.
  return { readOnly: true, reads, writes };
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
