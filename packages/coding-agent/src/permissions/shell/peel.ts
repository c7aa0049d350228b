// Peels one wrapper off a command line: its options (from its man page: coreutils 9.1,
// util-linux 2.38, findutils 4.9.0, procps 4.0.2, time 1.9, bash 5.2) and what it runs.
import { peelGitLine } from "./git.js";
import { SHELLS } from "./names.js";
import { type OptionTable, type OptionUse, optionTable, scanOptions } from "./options.js";
import type { ShellCommand, ShellWord } from "./parser.js";
import { OPAQUE_RUNNERS, peelRunner, RUNNERS } from "./runners.js";
import type { Unwrapped } from "./wrappers.js";

export interface Step {
  words: ShellWord[];
  transparent: boolean;
}

const table = optionTable;
const ENV = table([
  "-i --ignore-environment -0 --null -v --debug --list-signal-handling",
  "--block-signal --default-signal --ignore-signal: optional",
  "-u --unset: value",
  "-C --chdir: write",
  "-S --split-string: script",
]);
const TIMEOUT = table(["--preserve-status --foreground -v --verbose", "-k --kill-after -s --signal: value"]);
const NICE = table(["-n --adjustment: value"]);
const TIME = table([
  "-a --append -p --portability -v --verbose -q --quiet",
  "-f --format: value",
  "-o --output: write",
]);
const EXEC = table(["-c -l", "-a: value"]);
const STDBUF = table(["-i --input -o --output -e --error: value"]);
const SETSID = table(["-c --ctty -f --fork -w --wait"]);
const FLOCK = table([
  "-F --no-fork -e -x --exclusive -n --nb --nonblock -o --close -s --shared -u --unlock --verbose",
  "-E --conflict-exit-code -w --wait --timeout: value",
  "-c --command: script",
]);
const WATCH = table([
  "-p --precise -t --no-title -b --beep -e --errexit -g --chgexit -c --color -x --exec -w --no-wrap",
  "-d --differences: optional",
  "-n --interval -q --equexit: value",
]);
const IONICE = table([
  "-t --ignore",
  "-c --class -n --classdata: value",
  "-p --pid -P --pgid -u --uid: unsupported",
]);
const CHROOT = table(["--skip-chdir", "--groups --userspec: value"]);
const TASKSET = table(["-a --all-tasks -c --cpu-list", "-p --pid: unsupported"]);
const XARGS = table([
  "-0 --null -o --open-tty -p --interactive -r --no-run-if-empty --show-limits -t --verbose -x --exit",
  "-d --delimiter -E -L -n --max-args -P --max-procs -s --max-chars --process-slot-var -I: value",
  "-e --eof -i --replace -l --max-lines: optional",
  "-a --arg-file: names",
]);
const SU = table([
  "-l --login -m -p --preserve-environment -P --pty -w --whitelist-environment",
  "-s --shell -g --group -G --supp-group: value",
  "-c --command --session-command: script",
]);
const COMMAND = table(["-p -v -V"]);

/** Peels a wrapper whose options are in `opts` and whose command follows `skip` more operands. */
function withOptions(
  name: string,
  words: ShellWord[],
  out: Unwrapped,
  opts: ReturnType<typeof table>,
  settings: { skip?: number; transparent: boolean; numbers?: boolean },
): Step | undefined {
  const scanned = scanOptions(words.slice(1), opts, { stopAtOperand: true, numbers: settings.numbers });
  if (scanned.isErr()) {
    // The checker cannot tell which word is the command it runs.
    dynamicScript(out, `${name}: ${scanned.error.message}`);
    return undefined;
  }
  const scan = scanned.value;
  for (const o of scan.options) {
    if (o.kind === "write" && o.value) out.writes.push(o.value);
    if (o.kind === "unsupported") return undefined;
  }
  const rest = scan.operands.slice(settings.skip ?? 0);
  return rest.length > 0 ? { words: rest, transparent: settings.transparent } : undefined;
}

export function peel(
  name: string,
  words: ShellWord[],
  out: Unwrapped,
  input?: ShellCommand["input"],
): Step | undefined {
  switch (name) {
    case "env":
      return peelEnv(words, out);
    case "sudo":
    case "doas":
    case "pkexec":
      return peelSudo(name, words, out);
    case "timeout":
      return withOptions(name, words, out, TIMEOUT, { skip: 1, transparent: true });
    case "nice":
      return withOptions(name, words, out, NICE, { transparent: true, numbers: true });
    case "nohup":
    case "builtin":
      return words.length > 1
        ? { words: words.slice(words[1]!.value === "--" ? 2 : 1), transparent: true }
        : undefined;
    case "time":
      return withOptions(name, words, out, TIME, { transparent: true });
    case "exec":
      return withOptions(name, words, out, EXEC, { transparent: true });
    case "stdbuf":
      return withOptions(name, words, out, STDBUF, { transparent: true });
    case "ionice":
      return withOptions(name, words, out, IONICE, { transparent: true });
    case "taskset":
      return withOptions(name, words, out, TASKSET, { skip: 1, transparent: true });
    case "busybox":
      return words.length > 1 ? { words: words.slice(1), transparent: true } : undefined;
    case "command": {
      // `command -v x` only looks a name up.
      if (words.slice(1).some((w) => w.value === "-v" || w.value === "-V")) return undefined;
      return withOptions(name, words, out, COMMAND, { transparent: true });
    }
    case "setsid":
      out.notRead ??= "setsid runs the command outside the tool's process group";
      return withOptions(name, words, out, SETSID, { transparent: false });
    case "chroot": {
      out.elevated = true;
      out.notRead ??= "chroot runs the command under another root directory";
      const step = withOptions(name, words, out, CHROOT, { skip: 1, transparent: false });
      if (!step && !out.opaque) out.opaque = "chroot without a command runs an interactive shell";
      return step;
    }
    case "flock":
      return peelFlock(words, out);
    case "watch":
      return peelWatch(words, out);
    case "trap":
      return peelTrap(words, out);
    case "su":
    case "runuser":
      return peelSu(name, words, out);
    case "xargs":
      return peelXargs(words, out);
    case "git":
      return peelGit(words, out);
    case "eval": {
      const args = words.slice(1);
      if (args.some((w) => !w.static)) {
        dynamicScript(out, "eval of text only known when the shell runs");
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
      out.sources = words[1] ?? lit("");
      dynamicScript(out, `${name} runs the commands in ${words[1]?.raw ?? "a file"}`);
      return undefined;
    default:
      if (SHELLS.has(name)) return shellInvocation(name, words, out, input);
      if (RUNNERS.has(name) || OPAQUE_RUNNERS.has(name) || name === "sg" || name === "coproc")
        return peelRunner(name, words, out);
      return undefined;
  }
}

/** What runs is known only when the shell runs: the line is opaque, and says why. */
function dynamicScript(out: Unwrapped, reason: string): void {
  out.opaque = reason;
  out.dynamic = true;
}

/** A wrapper's options and operands up to the command it runs; unreadable options make the line opaque. */
function scanWrapper(
  name: string,
  words: ShellWord[],
  options: OptionTable,
  out: Unwrapped,
): { options: OptionUse[]; operands: ShellWord[] } | undefined {
  const scanned = scanOptions(words.slice(1), options, { stopAtOperand: true });
  if (scanned.isErr()) {
    out.opaque = `${name}: ${scanned.error.message}`;
    return undefined;
  }
  return scanned.value;
}

function lit(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}

/** `env [-iv0] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… COMMAND…` */
function peelEnv(words: ShellWord[], out: Unwrapped): Step | undefined {
  const scan = scanWrapper("env", words, ENV, out);
  if (!scan) return undefined;
  let i = 0;
  for (; i < scan.operands.length; i++) {
    const w = scan.operands[i]!;
    if (!w.static) {
      dynamicScript(out, "env with an argument only known when the shell runs");
      return undefined;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) break;
    const eq = w.value.indexOf("=");
    out.envAssignments.push({ name: w.value.slice(0, eq), value: lit(w.value.slice(eq + 1)) });
  }
  const rest = scan.operands.slice(i);
  for (const o of scan.options) {
    if (o.name === "-C" || o.name === "--chdir")
      out.notRead ??= "env -C runs the command in another directory";
    if (o.kind === "script") {
      // -S splits its string into arguments that come before the remaining ones.
      if (!o.value?.static) {
        dynamicScript(out, "env -S with a string only known when the shell runs");
        return undefined;
      }
      out.script = lit([o.value.value, ...rest.map((w) => w.raw)].join(" "));
      return undefined;
    }
  }
  return rest.length > 0 ? { words: rest, transparent: true } : undefined;
}

function peelSudo(name: string, words: ShellWord[], out: Unwrapped): Step | undefined {
  const withArg = new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group"]);
  let i = 1;
  while (i < words.length) {
    const v = words[i]!.static ? words[i]!.value : undefined;
    if (v === undefined) break;
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    const flag = v.startsWith("--") ? v.split("=")[0]! : v.slice(0, 2);
    i += withArg.has(flag) && (v === flag || (v.startsWith("--") && !v.includes("="))) ? 2 : 1;
  }
  out.elevated = true;
  const shellFlags = words.slice(1, i).some((w) => /^-[^-]*[sie]/.test(w.value) || w.value === "--shell");
  if (i >= words.length || shellFlags || words.slice(1, i).some((w) => !w.static)) {
    out.opaque = `${name} without a plain command to run`;
    return undefined;
  }
  return { words: words.slice(i), transparent: false };
}

/** `flock [options] FILE COMMAND…`, `flock [options] FILE -c SCRIPT`, `flock [options] FD`. */
function peelFlock(words: ShellWord[], out: Unwrapped): Step | undefined {
  const scan = scanWrapper("flock", words, FLOCK, out);
  if (!scan) return undefined;
  const [lock, ...rest] = scan.operands;
  if (lock && !/^\d+$/.test(lock.value)) out.writes.push(lock); // created when missing
  const script = scan.options.find((o) => o.kind === "script")?.value;
  const dashC = rest[0]?.value === "-c" || rest[0]?.value === "--command" ? rest[1] : undefined;
  const text = script ?? dashC;
  if (text) {
    if (text.static) out.script = text;
    else dynamicScript(out, "flock -c with a script only known when the shell runs");
    return undefined;
  }
  out.notRead ??= "flock creates its lock file";
  return rest.length > 0 ? { words: rest, transparent: false } : undefined;
}

/** `watch [options] COMMAND…`: joined into one `sh -c` script unless -x. */
function peelWatch(words: ShellWord[], out: Unwrapped): Step | undefined {
  const scan = scanWrapper("watch", words, WATCH, out);
  if (!scan) return undefined;
  out.notRead ??= "watch runs the command again and again";
  if (scan.operands.length === 0) return undefined;
  if (scan.options.some((o) => o.name === "-x" || o.name === "--exec"))
    return { words: scan.operands, transparent: false };
  if (scan.operands.some((w) => !w.static)) {
    dynamicScript(out, "watch of a command line only known when the shell runs");
    return undefined;
  }
  out.script = lit(scan.operands.map((w) => w.value).join(" "));
  return undefined;
}

/** `trap [-lp] [[ACTION] SIGNAL…]`: the action is a script the shell runs later. */
function peelTrap(words: ShellWord[], out: Unwrapped): undefined {
  let i = 1;
  while (i < words.length && /^-[lp]+$/.test(words[i]!.value)) i++;
  if (words[i]?.value === "--") i++;
  const action = words[i];
  if (!action || action.value === "-" || (action.static && action.value === "")) return undefined;
  if (action.static) out.script = action;
  else dynamicScript(out, "trap of an action only known when the shell runs");
  return undefined;
}

/** `su [options] [-] [USER [ARG…]]` runs a shell as another user; -c gives it a script. */
function peelSu(name: string, words: ShellWord[], out: Unwrapped): undefined {
  out.elevated = true;
  const scanned = scanOptions(words.slice(1), SU, { stopAtOperand: false });
  const script = scanned.isOk() ? scanned.value.options.find((o) => o.kind === "script")?.value : undefined;
  if (script?.static) out.script = script;
  else if (script) dynamicScript(out, `${name} -c with a script only known when the shell runs`);
  else out.opaque = `${name} runs a shell the checker cannot see`;
  return undefined;
}

function peelXargs(words: ShellWord[], out: Unwrapped): Step | undefined {
  const scan = scanWrapper("xargs", words, XARGS, out);
  if (!scan) return undefined;
  // -a FILE: the arguments come from the file, the command is still the one written.
  for (const o of scan.options) if (o.kind === "names" && o.value) out.reads.push(o.value);
  out.appendsArgs = true;
  // -I {} / -i: that string in the command is replaced by input text.
  const replace = scan.options.find((o) => o.name === "-I" || o.name === "-i" || o.name === "--replace");
  const token = replace ? (replace.value?.value ?? "{}") : undefined;
  const command = token
    ? scan.operands.map((w) => (w.value.includes(token) ? unknown(w) : w))
    : scan.operands;
  // Bare `xargs` runs echo. Allow rules for the inner command need an exact match (appendsArgs).
  return { words: command.length > 0 ? command : [lit("echo")], transparent: true };
}

/** A word the shell or a wrapper fills in at run time. */
function unknown(w: ShellWord): ShellWord {
  return { value: w.raw, static: false, raw: w.raw, tilde: false };
}

function peelGit(words: ShellWord[], out: Unwrapped): Step | undefined {
  const git = peelGitLine(words);
  if (git.globals.length > 0) out.gitGlobals = git.globals;
  out.extras.push(...git.extras);
  if (git.dynamic) dynamicScript(out, git.dynamic);
  if (git.script) {
    out.script = git.script;
    return undefined;
  }
  return git.words ? { words: git.words, transparent: git.transparent } : undefined;
}

/**
 * `sh -c SCRIPT`, `sh FILE`, `sh` reading its input. Text the script itself feeds it (a
 * here-document or here-string) is judged like `-c`; a file of commands cannot be seen, and with
 * Bash deny or ask rules it asks (the file may hold what they name).
 */
function shellInvocation(
  name: string,
  words: ShellWord[],
  out: Unwrapped,
  input: ShellCommand["input"],
): undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static) {
      dynamicScript(out, `${name} with an argument only known when the shell runs`);
      return undefined;
    }
    if (w.value === "--") {
      if (words[i + 1]) return scriptFile(name, words[i + 1]!, out);
      break;
    }
    // -c may be combined with other single-letter flags: `bash -lc '…'`, `sh -ec '…'`.
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w.value)) {
      const script = words[i + 1];
      if (!script) break;
      if (!script.static) {
        dynamicScript(out, `${name} -c with a script only known when the shell runs`);
        return undefined;
      }
      out.script = script;
      return undefined;
    }
    // -s: commands come from the input even with operands (they are its positional parameters).
    if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(w.value)) break;
    // `-o option` and `+o option` take a word.
    if (/^[-+]o$/.test(w.value)) {
      i++;
      continue;
    }
    if (w.value.startsWith("-") || w.value.startsWith("+")) continue;
    return scriptFile(name, w, out);
  }
  if (input && "text" in input) {
    if (input.text.static) out.script = input.text;
    else dynamicScript(out, `${name} reads commands from a here-document only known when the shell runs`);
    return undefined;
  }
  if (input && "file" in input) {
    dynamicScript(out, `${name} reads commands from the file ${input.file.raw}`);
    return undefined;
  }
  out.opaque = `${name} reads commands from its input`;
  return undefined;
}

function scriptFile(name: string, file: ShellWord, out: Unwrapped): undefined {
  dynamicScript(out, `${name} runs the script file ${file.raw}`);
  return undefined;
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function collectFindExec(words: ShellWord[], out: Unwrapped): void {
  for (let i = 1; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.value)) continue;
    const start = i + 1;
    let end = start;
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++;
    // find puts each path where `{}` is: those words are only known when it runs.
    if (end > start)
      out.extras.push(words.slice(start, end).map((w) => (w.value.includes("{}") ? unknown(w) : w)));
    i = end;
  }
}
