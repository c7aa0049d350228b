// Programs whose job is to run another command: namespaces, privileges, scheduling, tracing,
// session recorders, job runners. Each is either peeled (its options read from its man page on
// Debian 12 — util-linux 2.38, strace 6.1, systemd 252, fakeroot 1.31, dbus 1.14, expect 5.45 —
// and the command after them judged), or, when what it runs is text in a language of its own
// (gdb, expect, tmux, parallel's input), marked as running code the checker cannot see.
import { optionTable, scanOptions } from "./options.js";
import type { ShellWord } from "./parser.js";
import type { Step } from "./peel.js";
import type { Unwrapped } from "./wrappers.js";

const table = optionTable;

interface Runner {
  source: string;
  options: ReturnType<typeof table>;
  /** Operands before the command (chrt's priority, runcon's context). */
  skip?: number;
  /** Rules for the inner command also allow the whole line (only scheduling and limits). */
  transparent?: boolean;
  /** Runs the command as another user or in other namespaces: rules for it alone do not allow it. */
  elevated?: boolean;
  /** Without a command it starts an interactive shell. */
  shellWhenBare?: boolean;
  /** The command is one shell command line (`script -c`), not an argv. */
  scriptOption?: string[];
  /** Why it is not a read even when the command is. */
  notRead: string;
}

const NAMESPACES = "-i --ipc -m --mount -n --net -p --pid -u --uts -U --user -C --cgroup -T --time";

export const RUNNERS: ReadonlyMap<string, Runner> = new Map<string, Runner>([
  [
    "unshare",
    {
      source: "unshare(1) util-linux 2.38",
      options: table([
        "-f --fork --keep-caps --map-auto -r --map-root-user -c --map-current-user -h --help -V --version",
        `${NAMESPACES} --kill-child --mount-proc: optional`,
        "--map-user --map-users --map-group --map-groups --propagation --setgroups -S --setuid -G --setgid: value",
        "--monotonic --boottime -R --root -w --wd: value",
      ]),
      elevated: true,
      shellWhenBare: true,
      notRead: "unshare runs the command in new namespaces",
    },
  ],
  [
    "nsenter",
    {
      source: "nsenter(1) util-linux 2.38",
      options: table([
        "-a --all --preserve-credentials -F --no-fork -Z --follow-context -h --help -V --version",
        `${NAMESPACES} -r --root -w --wd -W --wdns: optional`,
        "-t --target -G --setgid -S --setuid: value",
      ]),
      elevated: true,
      shellWhenBare: true,
      notRead: "nsenter runs the command in another process's namespaces",
    },
  ],
  [
    "setpriv",
    {
      source: "setpriv(1) util-linux 2.38",
      options: table([
        "--clear-groups -d --dump --keep-groups --init-groups --list-caps --no-new-privs --reset-env -h --help -V --version",
        "--groups --inh-caps --ambient-caps --bounding-set --rgid --egid --regid --ruid --euid --reuid: value",
        "--securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule: value",
      ]),
      elevated: true,
      notRead: "setpriv runs the command with other privileges",
    },
  ],
  [
    "chrt",
    {
      source: "chrt(1) util-linux 2.38",
      options: table([
        "-o --other -f --fifo -r --rr -b --batch -i --idle -d --deadline -R --reset-on-fork -a --all-tasks -v --verbose",
        "-T --sched-runtime -P --sched-period -D --sched-deadline: value",
        "-p --pid -m --max -h --help -V --version: unsupported",
      ]),
      skip: 1,
      transparent: true,
      notRead: "chrt changes the command's scheduling",
    },
  ],
  [
    "prlimit",
    {
      source: "prlimit(1) util-linux 2.38",
      options: table([
        "--noheadings --raw --verbose -h --help -V --version",
        "-o --output: value",
        "-p --pid: unsupported",
        "-c --core -d --data -e --nice -f --fsize -i --sigpending -l --memlock -m --rss -n --nofile: optional",
        "-q --msgqueue -r --rtprio -s --stack -t --cpu -u --nproc -v --as -x --locks -y --rttime: optional",
      ]),
      transparent: true,
      notRead: "prlimit changes the command's resource limits",
    },
  ],
  [
    "runcon",
    {
      source: "runcon(1) coreutils 9.1",
      options: table(["-c --compute --help --version", "-t --type -u --user -r --role -l --range: value"]),
      elevated: true,
      notRead: "runcon runs the command in another SELinux context",
    },
  ],
  [
    "script",
    {
      source: "script(1) util-linux 2.38",
      options: table([
        "-a --append -e --return -f --flush --force -q --quiet -h --help -V --version",
        "-E --echo -m --logging-format -o --output-limit: value",
        "-B --log-io -I --log-in -O --log-out -T --log-timing: write",
        "-t --timing: optional",
        "-c --command: script",
      ]),
      shellWhenBare: true,
      scriptOption: ["-c", "--command"],
      notRead: "script records a session into a file",
    },
  ],
  [
    "strace",
    {
      source: "strace(1) strace 6.1",
      options: table([
        "-A -c -C -d -D -f -F -h -i -k -n -q -r -t -T -v -V -w -x -y -Y -z -Z --output-append-mode",
        "--summary-only --summary --debug --follow-forks --output-separately --instruction-pointer",
        "--syscall-number --stack-traces --no-abbrev --pidns-translation --seccomp-bpf --summary-wall-clock",
        "--successful-only --failed-only --help --version",
        "--daemonize --relative-timestamps --absolute-timestamps --timestamps --syscall-times: optional",
        "--strings-in-hex --decode-fds --decode-pids --quiet --tips: optional",
        "-e -I -P -a -s -X -O -S -U -b --interruptible --trace --signal --status --trace-path --columns: value",
        "--abbrev --verbose --raw --read --write --silent --silence --kvm --string-limit: value",
        "--const-print-style --summary-syscall-overhead --summary-sort-by --summary-columns --inject: value",
        "--fault --detach-on -u --user: value",
        // -o |cmd and -o !cmd pipe the trace into a command; -E sets the traced program's environment.
        "-o --output: write",
        "-E --env -p --attach: unsupported",
      ]),
      notRead: "strace runs the command under a tracer",
    },
  ],
  [
    "systemd-run",
    {
      source: "systemd-run(1) systemd 252",
      options: table([
        "--no-ask-password --scope --slice-inherit -r --remain-after-exit --send-sighup -d --same-dir",
        "-t --pty -P --pipe -q --quiet --on-clock-change --on-timezone-change --no-block --wait -G --collect",
        "--user --system -h --help --version",
        "-u --unit --description --slice --service-type --uid --gid --nice --working-directory: value",
        "--on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar: value",
        // Properties can add commands (ExecStartPre=…); --shell runs a shell; -H and -M run elsewhere.
        "-p --property --timer-property --path-property --socket-property -E --setenv -S --shell: unsupported",
        "-H --host -M --machine: unsupported",
      ]),
      notRead: "systemd-run runs the command as a service",
    },
  ],
  [
    "fakeroot",
    {
      source: "fakeroot(1) fakeroot 1.31",
      options: table([
        "-u --unknown-is-real -h -v",
        "-b: value",
        "-i: read",
        "-s: write",
        "-l --lib --faked: unsupported",
      ]),
      shellWhenBare: true,
      notRead: "fakeroot runs the command with a faked root identity",
    },
  ],
  [
    "dbus-run-session",
    {
      source: "dbus-run-session(1) dbus 1.14",
      options: table(["--help --version", "--config-file: read", "--dbus-daemon: unsupported"]),
      notRead: "dbus-run-session runs the command with its own message bus",
    },
  ],
  [
    "unbuffer",
    {
      source: "unbuffer(1) expect 5.45",
      options: table(["-p"]),
      transparent: true,
      notRead: "unbuffer runs the command on a pseudo-terminal",
    },
  ],
]);

/**
 * Programs that run command text in a language of their own, or command lines they build or
 * receive at run time: what they run cannot be checked, so with Bash deny or ask rules they ask.
 */
export const OPAQUE_RUNNERS: ReadonlyMap<string, string> = new Map([
  ["gdb", "gdb(1): -ex, -x, its init files and `shell`/`python` commands run programs"],
  ["lldb", "lldb(1): -o and its command files run programs"],
  ["expect", "expect(1): its Tcl script spawns programs"],
  ["tclsh", "a Tcl interpreter: exec runs programs"],
  ["wish", "a Tcl interpreter: exec runs programs"],
  ["parallel", "parallel(1): runs command lines built from its input and arguments"],
  ["sem", "sem(1) (parallel --semaphore): runs a command line through a shell"],
  ["at", "at(1): runs the commands it reads later"],
  ["batch", "batch(1): runs the commands it reads later"],
  ["crontab", "crontab(1): installs commands that run later"],
  ["tmux", "tmux(1): new-session, send-keys and run-shell run command lines"],
  ["screen", "screen(1): runs commands in its windows"],
  ["perf", "perf(1): record, stat and trace run the command under options the checker does not follow"],
  ["valgrind", "valgrind(1): runs the program under tools whose options the checker does not follow"],
  ["ltrace", "ltrace(1): runs the command under a tracer whose options the checker does not follow"],
  ["newgrp", "newgrp(1): starts a shell"],
  [
    "ssh",
    "ssh(1): runs a command line on another host (or this one), and its options can run local commands",
  ],
  ["bwrap", "bwrap(1): runs the command in a sandbox whose options the checker does not follow"],
  ["firejail", "firejail(1): runs the command in a sandbox whose options the checker does not follow"],
  ["start-stop-daemon", "start-stop-daemon(8): starts a program as a daemon"],
  ["daemonize", "daemonize(1): starts a program as a daemon"],
]);

function runs(out: Unwrapped, reason: string): undefined {
  out.opaque = reason;
  out.dynamic = true;
  return undefined;
}

function lit(value: string): ShellWord {
  return { value, static: true, raw: value, tilde: false };
}

export function peelRunner(name: string, words: ShellWord[], out: Unwrapped): Step | undefined {
  const opaque = OPAQUE_RUNNERS.get(name);
  if (opaque) return runs(out, `${name} runs code the checker cannot see (${opaque})`);
  if (name === "sg") return peelSg(words, out);
  if (name === "coproc") return peelCoproc(words, out);
  const runner = RUNNERS.get(name);
  if (!runner) return undefined;
  const scanned = scanOptions(words.slice(1), runner.options, {
    stopAtOperand: true,
    numbers: name === "chrt",
  });
  if (scanned.isErr()) return runs(out, `${name}: ${scanned.error.message}`);
  const scan = scanned.value;
  out.notRead ??= runner.notRead;
  if (runner.elevated) out.elevated = true;
  for (const o of scan.options) {
    if (o.kind === "unsupported")
      return runs(out, `${name} ${o.name} is an option the checker does not follow`);
    if (o.kind === "write" && o.value) {
      // strace -o '|cmd': the trace goes into a command.
      if (/^[|!]/.test(o.value.value) || !o.value.static)
        return runs(out, `${name} ${o.name} ${o.value.raw} may pipe into a command`);
      out.writes.push(o.value);
    }
    if (o.kind === "script" && runner.scriptOption?.includes(o.name)) {
      if (!o.value?.static)
        return runs(out, `${name} ${o.name} with a command only known when the shell runs`);
      out.script = o.value;
      // script also writes its typescript (the operand, or ./typescript).
      if (name === "script") out.writes.push(scan.operands[0] ?? lit("typescript"));
      return undefined;
    }
  }
  if (name === "script") return runs(out, "script without -c runs an interactive shell");
  const rest = scan.operands.slice(runner.skip ?? 0);
  if (rest.length === 0) {
    if (runner.shellWhenBare) return runs(out, `${name} without a command runs a shell`);
    return undefined;
  }
  return { words: rest, transparent: runner.transparent === true };
}

/** `sg [-] [group [-c] command]`: the command is a line for /bin/sh. */
function peelSg(words: ShellWord[], out: Unwrapped): undefined {
  out.elevated = true;
  let i = 1;
  if (words[i]?.value === "-") i++;
  i++; // the group
  if (words[i]?.value === "-c") i++;
  const rest = words.slice(i);
  if (rest.length === 0) return runs(out, "sg without a command runs a shell");
  if (rest.some((w) => !w.static)) return runs(out, "sg with a command only known when the shell runs");
  out.script = lit(rest.map((w) => w.value).join(" "));
  return undefined;
}

/** `coproc [NAME] command`: tree-sitter leaves `coproc NAME { cmd; }` as words, braces included. */
function peelCoproc(words: ShellWord[], out: Unwrapped): Step | undefined {
  let rest = words.slice(1);
  if (rest.length > 1 && (rest[1]!.value === "{" || rest[1]!.value === "(")) rest = rest.slice(2);
  else if (rest[0]?.value === "{" || rest[0]?.value === "(") rest = rest.slice(1);
  out.notRead ??= "coproc runs the command in the background";
  return rest.length > 0 ? { words: rest, transparent: false } : undefined;
}
