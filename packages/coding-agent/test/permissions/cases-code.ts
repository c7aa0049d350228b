// The permission matrix's second red-team pass, as data: text bash evaluates as code (class 5),
// variables and hooks that make a git read run programs (class 6), and the runners a deny rule
// must see through or refuse to guess about (class 7). Judged and run like cases.ts.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the cases are shell text, not templates
import { ASKS, DENIED, HARD, PWNED, READS, RM_DENY, tag, VICTIM } from "./case-kit.js";

/** The hook fixtures touch PWNED in their own workspace when git writes their index. */
const HOOKED = { creates: "hooked/PWNED", stale: "hooked/clean.txt" };
const HOOKSPATH = { creates: "hookspath/PWNED", stale: "hookspath/clean.txt" };
const HOOK_NEVER = { ...HOOKED, never: true as const };

/** Class 5: values bash evaluates as arithmetic or as variable names run the command substitutions in them. */
// biome-ignore format: one case per line reads as a table
export const evaluatedValues = tag("5 evaluated values", [
  { name: "$((x)) evaluates x's value", cmd: "x='a[$(touch PWNED)]'; echo $((x))", expect: ASKS, reason: /evaluate \$x/, e2e: PWNED },
  { name: "$(($x)) evaluates the expanded text", cmd: "x='a[$(touch PWNED)]'; echo $(($x))", expect: ASKS, e2e: PWNED },
  { name: "(( x )) as a statement", cmd: "x='a[$(touch PWNED)]'; ((x))", expect: ASKS, e2e: PWNED },
  { name: "$[x], the old arithmetic syntax", cmd: "x='a[$(touch PWNED)]'; echo $[x]", expect: ASKS, e2e: PWNED },
  { name: "let evaluates its arguments", cmd: "x='a[$(touch PWNED)]'; let x", expect: ASKS, e2e: PWNED },
  { name: "[[ -v $x ]] evaluates a subscript in the name", cmd: "x='a[$(touch PWNED)]'; [[ -v $x ]]", expect: ASKS, e2e: PWNED },
  { name: "test -v with a subscript", cmd: "test -v 'a[$(touch PWNED)]'", expect: ASKS, e2e: PWNED },
  { name: "[ -v ] with a subscript", cmd: "[ -v 'a[$(touch PWNED)]' ]", expect: ASKS, e2e: PWNED },
  { name: "[[ $x -eq 1 ]] evaluates both sides", cmd: "x='a[$(touch PWNED)]'; [[ $x -eq 1 ]]", expect: ASKS, e2e: PWNED },
  { name: "[[ x -lt 1 ]] evaluates a bare name", cmd: "x='a[$(touch PWNED)]'; [[ x -lt 1 ]]", expect: ASKS, e2e: PWNED },
  { name: "an array subscript in an expansion", cmd: "x='a[$(touch PWNED)]'; echo ${a[x]}", expect: ASKS, e2e: PWNED },
  { name: "${!x} evaluates x's value as a name", cmd: "x='a[$(touch PWNED)]'; echo ${!x}", expect: ASKS, e2e: PWNED },
  { name: "${x@P} expands x's value as a prompt", cmd: "x='$(touch PWNED)'; echo ${x@P}", expect: ASKS, e2e: PWNED },
  { name: "a substring length", cmd: "s=abc; x='a[$(touch PWNED)]'; echo ${s:0:x}", expect: ASKS, e2e: PWNED },
  { name: "an assignment to an array element", cmd: "x='a[$(touch PWNED)]'; a[x]=1", expect: ASKS, e2e: PWNED },
  { name: "a key in an array literal", cmd: "x='a[$(touch PWNED)]'; arr=([x]=1)", expect: ASKS, e2e: PWNED },
  { name: "printf -v into a subscript", cmd: "printf -v 'a[$(touch PWNED)]' %s 1", expect: ASKS, e2e: PWNED },
  { name: "read into a subscript", cmd: "read 'a[$(touch PWNED)]' <<< 1", expect: ASKS, e2e: PWNED },
  { name: "declare of a subscripted name", cmd: "declare 'a[$(touch PWNED)]=1'", expect: ASKS, e2e: PWNED },
  { name: "a nameref to a subscript", cmd: "x='a[$(touch PWNED)]'; declare -n r=$x; echo $r", expect: ASKS, e2e: PWNED },
  { name: "a C-style for evaluates its header", cmd: "x='a[$(touch PWNED)]'; for ((i=x; i<1; i++)); do :; done", expect: ASKS, e2e: PWNED },
  { name: "an arithmetic case pattern", cmd: "x='a[$(touch PWNED)]'; case 1 in $((x))) ;; esac", expect: ASKS, e2e: PWNED },
  { name: "a for loop assigns PATH before its body", cmd: "for PATH in .:/usr/bin:/bin; do ls; done", expect: ASKS, reason: /PATH/, e2e: PWNED },
  { name: "an evaluated value hides a denied command", cmd: "x='a[$(rm victim.txt)]'; echo $((x))", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "let hides a denied command", cmd: "let 'a[$(rm victim.txt)]'", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "an integer variable evaluates what it is given", cmd: "declare -i n; n='a[$(rm victim.txt)]'", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "literal arithmetic stays a read", cmd: "echo $((1+2)) $((0x1f)) $((2#101)) $[3*4]", expect: READS },
  { name: "a loop over literal integers stays a read", cmd: "for i in 1 2 3; do echo $((i*2)); done", expect: READS },
  { name: "a C-style loop over its own counter stays a read", cmd: "for ((i=0; i<3; i++)); do echo $((i+1)); done", expect: READS },
  { name: "a variable set to an integer stays a read", cmd: "n=5; echo $((n-1)) ${#PATH} ${PATH:0:3}", expect: READS },
  { name: "-v of a plain name and $# stay reads", cmd: "[[ -v HOME ]] && [[ $# -eq 0 ]] && test -v PATH", expect: READS },
]);

/** Class 6: what makes a git "read" run a program the project chose. */
// biome-ignore format: one case per line reads as a table
export const gitEnvironment = tag("6 git environment and hooks", [
  { name: "XDG_CONFIG_HOME moves git's user config (diff)", cmd: "XDG_CONFIG_HOME=cfg git diff", expect: ASKS, reason: /XDG_CONFIG_HOME/, e2e: PWNED },
  { name: "XDG_CONFIG_HOME moves git's user config (status)", cmd: "XDG_CONFIG_HOME=cfg git status", expect: ASKS, e2e: PWNED },
  { name: "XDG_CONFIG_HOME exported first", cmd: "export XDG_CONFIG_HOME=cfg; git diff", expect: ASKS, e2e: PWNED },
  { name: "XDG_CONFIG_HOME through env", cmd: "env XDG_CONFIG_HOME=cfg git diff", expect: ASKS, e2e: PWNED },
  { name: "HOME moves ~/.gitconfig", cmd: "HOME=cfg/home git diff", expect: ASKS, e2e: PWNED },
  { name: "GIT_CONFIG_GLOBAL names a config file", cmd: "GIT_CONFIG_GLOBAL=cfg/git/config git diff", expect: ASKS, e2e: PWNED },
  { name: "GIT_CONFIG_SYSTEM names a config file", cmd: "GIT_CONFIG_SYSTEM=cfg/git/config git diff", expect: ASKS, e2e: PWNED },
  { name: "GIT_EXEC_PATH moves git's programs", cmd: "GIT_EXEC_PATH=. git status", expect: ASKS },
  { name: "an inert git variable keeps a read", cmd: "GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 git log -1", expect: READS },
  { name: "git status runs the post-index-change hook", cmd: "git status", workspace: "hooked", expect: ASKS, reason: /post-index-change/, e2e: HOOKED },
  { name: "git diff runs the post-index-change hook", cmd: "git diff", workspace: "hooked", expect: ASKS, e2e: HOOKED },
  { name: "git diff HEAD runs it too", cmd: "git diff HEAD", workspace: "hooked", expect: ASKS, e2e: HOOKED },
  { name: "git diff ignores --no-optional-locks", cmd: "git --no-optional-locks diff", workspace: "hooked", expect: ASKS, e2e: HOOKED },
  { name: "git diff ignores GIT_OPTIONAL_LOCKS=0", cmd: "GIT_OPTIONAL_LOCKS=0 git diff", workspace: "hooked", expect: ASKS, e2e: HOOKED },
  { name: "git status --no-optional-locks leaves the index alone", cmd: "git --no-optional-locks status", workspace: "hooked", expect: READS, e2e: HOOK_NEVER },
  { name: "GIT_OPTIONAL_LOCKS=0 git status leaves the index alone", cmd: "GIT_OPTIONAL_LOCKS=0 git status", workspace: "hooked", expect: READS, e2e: HOOK_NEVER },
  { name: "git log never writes the index", cmd: "git log -1 && git diff --cached && git show --stat", workspace: "hooked", expect: READS, e2e: HOOK_NEVER },
  { name: "core.hooksPath leads to a committed hook (status)", cmd: "git status", workspace: "hookspath", expect: ASKS, reason: /\.githooks/, e2e: HOOKSPATH },
  { name: "core.hooksPath leads to a committed hook (diff)", cmd: "git diff", workspace: "hookspath", expect: ASKS, e2e: HOOKSPATH },
  { name: "git config writes the repository's config", cmd: "git config diff.external ./evil.sh", expect: HARD, reason: /protected/ },
  { name: "git config --global writes ~/.gitconfig", cmd: "git config --global alias.x '!./evil.sh'", expect: HARD },
  { name: "git config --file names the file it writes", cmd: "git config --file src/x.cfg a.b c", expect: ASKS },
  { name: "git status in a clean repository stays a read", cmd: "git status && git diff", expect: READS },
]);

/** Class 7: programs that run other commands, and what a deny rule can see through them. */
// biome-ignore format: one case per line reads as a table
export const runners = tag("7 runners", [
  { name: "a here-document into bash", cmd: "bash <<EOF\nrm victim.txt\nEOF", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "a quoted here-document into sh", cmd: "sh <<'EOF'\nrm victim.txt\nEOF", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "a here-string into bash", cmd: "bash <<< 'rm victim.txt'", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "a here-document with an expansion", cmd: "c=rm; bash <<EOF\n$c victim.txt\nEOF", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "bash reading a file on its input", cmd: "bash < rm-victim.sh", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "bash running a script file", cmd: "bash rm-victim.sh", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "source of a script file", cmd: "source ./rm-victim.sh", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: ". of a script file", cmd: ". ./rm-victim.sh", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "BASH_ENV makes bash run a file first", cmd: "BASH_ENV=./rm-victim.sh bash -c true", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "BASH_ENV through env", cmd: "env BASH_ENV=./rm-victim.sh bash -c true", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "xargs -a reads names, the command is still seen", cmd: "xargs -a victim-list.txt rm", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "xargs --arg-file=", cmd: "xargs --arg-file=victim-list.txt rm", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "git -c alias.x='!…'", cmd: "git -c alias.x='!rm victim.txt' x", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "a git ! alias given its arguments", cmd: "git -c alias.wipe='!rm' wipe victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "a git alias for a denied subcommand", cmd: "git -c alias.p=push p origin main", deny: ["Bash(git push:*)"], expect: DENIED },
  { name: "a git subcommand that may be an alias", cmd: "git st", deny: RM_DENY, expect: HARD, reason: /alias/ },
  { name: "git -c core.editor runs a command line", cmd: "git -c core.editor='rm victim.txt' -c user.name=k -c user.email=k@k commit --allow-empty", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "GIT_EDITOR names a command line", cmd: "GIT_EDITOR='rm victim.txt' git -c user.name=k -c user.email=k@k commit --allow-empty", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "script -c", cmd: "script -qc 'rm victim.txt' /dev/null", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "unshare -r", cmd: "unshare -r rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "unshare with long options", cmd: "unshare --map-root-user --fork rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "coproc", cmd: "coproc rm victim.txt; wait", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "coproc NAME { … }", cmd: "coproc N { rm victim.txt; }; wait", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "setpriv", cmd: "setpriv --no-new-privs rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "chrt", cmd: "chrt -o 0 rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "prlimit", cmd: "prlimit --nofile=512 rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "strace", cmd: "strace -f -o /dev/null rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "strace -o |cmd pipes into a command", cmd: "strace -o '|rm victim.txt' true", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "systemd-run", cmd: "systemd-run --user --wait rm victim.txt", deny: RM_DENY, expect: DENIED },
  { name: "systemd-run -p can add commands", cmd: "systemd-run --user -p ExecStartPre=/bin/true true", deny: RM_DENY, expect: HARD },
  { name: "nsenter", cmd: "nsenter -t 1 -m rm victim.txt", deny: RM_DENY, expect: DENIED },
  { name: "sg -c", cmd: "sg staff -c 'rm victim.txt'", deny: RM_DENY, expect: DENIED },
  { name: "fakeroot", cmd: "fakeroot rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "unbuffer", cmd: "unbuffer rm victim.txt", deny: RM_DENY, expect: DENIED, e2e: VICTIM },
  { name: "gdb -ex shell", cmd: "gdb -batch -ex 'shell rm victim.txt'", deny: RM_DENY, expect: HARD, reason: /gdb/, e2e: VICTIM },
  { name: "expect spawn", cmd: "expect -c 'spawn rm victim.txt; expect eof'", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "parallel", cmd: "parallel rm ::: victim.txt", deny: RM_DENY, expect: HARD, e2e: VICTIM },
  { name: "a wrapper option the checker does not know", cmd: "timeout --frobnicate 5 rm victim.txt", deny: RM_DENY, expect: HARD },
  { name: "a runner is not a read", cmd: "unshare -r ls", expect: ASKS, reason: /elevated/ },
  { name: "an interpreter is beyond a command deny rule", cmd: "python3 -c 'import os; os.remove(\"victim.txt\")'", deny: RM_DENY, expect: ASKS, e2e: VICTIM },
]);
