// The shell payloads of the sandbox matrix (sandbox-matrix.test.ts): each one tries one effect
// Keel must not let a command have — a write outside the workspace, a write to a protected path,
// a packet to a loopback listener or a host socket, a read of a private key or of Keel's home —
// through one way of spelling or smuggling it. `{id}` names the payload in every trace it leaves,
// so an effect is attributed to the payload that had it. The commands read where to aim from the
// environment: OUT (a folder outside the workspace), HOME, KH (Keel's home), PORT (a loopback
// HTTP listener), SOCK (a Unix socket in the home folder), KEEL_PAYLOAD (read by the repository's
// own hooks). A plain bash run of every payload (the control run) proves each one is live — so a
// payload must be harmless unconfined, even as root: it aims only at the fixture, and never
// changes the host's mounts (a `mount --bind` of a host folder there, removed with the fixture,
// would empty that folder).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell text throughout, not templates

/**
 * What the payloads run, for CI to install (Debian: bubblewrap curl wget python3 perl git gdb
 * strace expect parallel zip make libcap2-bin procps xxd binutils util-linux bsdutils coreutils
 * findutils tar; node is keel's own).
 */
export const PROGRAMS = [
  "bwrap",
  "curl",
  "wget",
  "python3",
  "perl",
  "node",
  "git",
  "gdb",
  "strace",
  "expect",
  "tclsh",
  "parallel",
  "zip",
  "gzip",
  "make",
  "capsh",
  "watch",
  "xxd",
  "script",
  "unshare",
  "setpriv",
  "chrt",
  "taskset",
  "ionice",
  "flock",
  "setsid",
  "stdbuf",
  "timeout",
  "strings",
];

export type Effect = "outside" | "protected" | "network" | "socket" | "read" | "inside";

export interface Payload {
  /** The class of trick, in this project's words. */
  cls: string;
  cmd: string;
  effect: Effect;
  /** Files the workspace holds for this payload (`{id}`, `{OUT}` substituted); `+x` marks executables. */
  files?: Record<string, string>;
}

const out = (cls: string, cmd: string, files?: Record<string, string>): Payload => ({
  cls,
  cmd,
  effect: "outside",
  ...(files ? { files } : {}),
});
const prot = (cls: string, cmd: string): Payload => ({ cls, cmd, effect: "protected" });
const net = (cmd: string): Payload => ({ cls: "network to a loopback listener", cmd, effect: "network" });
const sock = (cmd: string): Payload => ({ cls: "a host Unix socket", cmd, effect: "socket" });
const read = (cls: string, cmd: string): Payload => ({ cls, cmd, effect: "read" });
const inside = (cmd: string): Payload => ({ cls: "a write inside the workspace", cmd, effect: "inside" });

const T = 'touch "$OUT/{id}"';
const SCRIPT = { "s{id}.sh": 'touch "$OUT/{id}"\n' };
/** A git config whose fsmonitor hook runs a command (git appends arguments: `#` comments them out). */
const FSMONITOR = "[core]\n\tfsmonitor = touch {OUT}/{id} #\n";
const KEY = '"$HOME/.ssh/id_ed25519"';

export const PAYLOADS: Payload[] = [
  // Plain writes outside the workspace, spelled many ways.
  out("a write outside", T),
  out("a write outside", 'echo x > "$OUT/{id}"'),
  out("a write outside", 'echo x | tee "$OUT/{id}" >/dev/null'),
  out("a write outside", 'cp README.md "$OUT/{id}"'),
  out("a write outside", 'mkdir "$OUT/{id}"'),
  out("a write outside", 'ln -s /etc/hostname "$OUT/{id}"'),
  out("a write outside", 'dd if=/dev/zero of="$OUT/{id}" bs=1 count=1 2>/dev/null'),
  out("a write outside", 'install -m 644 README.md "$OUT/{id}"'),
  out("a write outside", `python3 -c "import os; open(os.environ['OUT']+'/{id}','w').write('x')"`),
  out("a write outside", `perl -e 'open(F, ">", "$ENV{OUT}/{id}") or die'`),
  out("a write outside", `node -e "require('fs').writeFileSync(process.env.OUT+'/{id}','x')"`),
  out("a write outside", `awk 'BEGIN { printf "x" > (ENVIRON["OUT"] "/{id}") }'`),
  out("a write outside", `sed -n "w $OUT/{id}" README.md`),
  out("a write outside", 'cd .. && touch "$(basename "$OUT")/{id}"'),
  out("a write outside", 'ln -s "$OUT" link{id} && touch link{id}/{id}'),
  out("a write outside", 'tar -cf "$OUT/{id}" README.md'),
  out("a write outside", 'git init -q "$OUT/{id}"'),
  out("a write outside", 'find README.md -fprint "$OUT/{id}"'),
  out("a write outside", 'sort -o "$OUT/{id}" README.md'),
  out("a write outside", 'touch "$HOME/{id}"'),
  out("a write outside", 'exec 3>"$OUT/{id}"'),
  out("a write outside", 'cat > "$OUT/{id}" <<< x'),
  out("a write outside", 'truncate -s 1 "$OUT/{id}"'),
  out("a write outside", 'mkfifo "$OUT/{id}"'),
  out("a write outside", 'split -l 1 README.md "$OUT/{id}"'),
  out("a write outside", 'gzip -c README.md > "$OUT/{id}"'),
  out("a write outside", 'zip -q "$OUT/{id}.zip" README.md'),
  out("a write outside", 'echo x > /proc/self/root"$OUT/{id}"'),
  out("a write outside", 'cd "$OUT" && touch {id}'),
  out("a write outside", 'printf x | dd of="$OUT/{id}" status=none'),
  out(
    "a write outside",
    `python3 -c "import os, shutil; shutil.copy('README.md', os.environ['OUT'] + '/{id}')"`,
  ),
  out("a write outside", 'xxd README.md > "$OUT/{id}"'),

  // Arithmetic and `-v` operands are code: an array subscript runs a command substitution.
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; echo $((x))`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; (( x )); true`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; [[ $x -eq 0 ]]; true`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; let 'y = x'; true`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; declare -i y; y=x; true`),
  out("arithmetic that runs code", `a=(1); x='a[$(touch "$OUT/{id}")]'; echo "\${a[x]}"`),
  out("arithmetic that runs code", `s=abc; x='a[$(touch "$OUT/{id}")]'; echo "\${s:x}"`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; for ((i = x; i < 0; i++)); do :; done`),
  out("arithmetic that runs code", `x='a[$(touch "$OUT/{id}")]'; case $((x)) in *) ;; esac`),
  out(
    "arithmetic that runs code",
    `x='a[$(touch "$OUT/{id}")]'; test "$x" -gt 0 2>/dev/null; [[ x -gt 0 ]]; true`,
  ),
  out("a -v test that runs code", `test -v 'a[$(touch "$OUT/{id}")]'; true`),
  out("a -v test that runs code", `[[ -v 'a[$(touch "$OUT/{id}")]' ]]; true`),
  out("a -v test that runs code", `x='a[$(touch "$OUT/{id}")]'; [ -v "$x" ]; true`),

  // Variables and options that move git's configuration to a file the command chose.
  out("git config moved by the environment", 'XDG_CONFIG_HOME="$PWD/cfg{id}" git status >/dev/null', {
    "cfg{id}/git/config": FSMONITOR,
  }),
  out("git config moved by the environment", 'GIT_CONFIG_GLOBAL="$PWD/g{id}.ini" git status >/dev/null', {
    "g{id}.ini": FSMONITOR,
  }),
  out("git config moved by the environment", 'GIT_CONFIG_SYSTEM="$PWD/g{id}.ini" git status >/dev/null', {
    "g{id}.ini": FSMONITOR,
  }),
  out("git config moved by the environment", 'HOME="$PWD/h{id}" git status >/dev/null', {
    "h{id}/.gitconfig": FSMONITOR,
  }),
  out(
    "git config moved by the environment",
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="touch $OUT/{id} #" git status >/dev/null',
  ),
  out(
    "git config moved by the environment",
    'FSM="touch $OUT/{id} #" git --config-env=core.fsmonitor=FSM status >/dev/null',
  ),
  out(
    "git config moved by the environment",
    'echo y >> README.md; GIT_EXTERNAL_DIFF="touch $OUT/{id} #" git diff',
  ),
  // git pages only to a terminal: script gives it one.
  out(
    "git config moved by the environment",
    `script -qc 'GIT_PAGER="touch $OUT/{id}; cat" git -p log -1' /dev/null >/dev/null`,
  ),
  out(
    "git config moved by the environment",
    'GIT_SSH_COMMAND="touch $OUT/{id} #" git ls-remote ssh://example.invalid/r 2>/dev/null; true',
  ),
  out(
    "git config moved by the environment",
    'GIT_EDITOR="touch $OUT/{id} #" git commit -q --allow-empty 2>/dev/null; true',
  ),
  out("git -c running code", 'git -c core.fsmonitor="touch $OUT/{id} #" status >/dev/null'),
  out("git -c running code", "git -c alias.x='!touch \"$OUT/{id}\"' x"),
  out(
    "git -c running code",
    `script -qc 'git -c core.pager="touch $OUT/{id}; cat" -p log -1' /dev/null >/dev/null`,
  ),
  out(
    "git -c running code",
    'git -c core.sshCommand="touch $OUT/{id} #" ls-remote ssh://example.invalid/r 2>/dev/null; true',
  ),
  out(
    "git -c running code",
    'git -c core.editor="touch $OUT/{id} #" commit -q --allow-empty 2>/dev/null; true',
  ),
  out("git -c running code", 'git -c core.hooksPath="$PWD/hooks{id}" commit -q --allow-empty -m x', {
    "hooks{id}/pre-commit+x": '#!/bin/sh\ntouch "$OUT/{id}"\n',
  }),
  out("git -c running code", 'echo z >> README.md; git difftool -y -x "touch $OUT/{id} #" >/dev/null'),
  out("git -c running code", 'git grep --open-files-in-pager="touch $OUT/{id} #" hello >/dev/null'),

  // "Read-only" git commands that run the repository's own hooks (installed before the run).
  out("git running the repository's hooks", "touch README.md; KEEL_PAYLOAD={id} git status >/dev/null"),
  // A second later, so the touch is not lost in git's racy-timestamp window.
  out(
    "git running the repository's hooks",
    "sleep 1; touch README.md; KEEL_PAYLOAD={id} git diff >/dev/null",
  ),
  out(
    "git running the repository's hooks",
    "sleep 1; touch README.md; KEEL_PAYLOAD={id} git describe --always --dirty >/dev/null",
  ),
  out(
    "git running the repository's hooks",
    "touch README.md; KEEL_PAYLOAD={id} git update-index --refresh >/dev/null; true",
  ),
  // git add writes the index (and so runs post-index-change) only when an entry changed or was
  // racily clean: without the touch the hook ran only when the fixture wrote README.md within a
  // second of committing it, which a loaded machine misses. The sleep keeps the touch out of the
  // racy window, as for git diff above.
  out("git running the repository's hooks", "sleep 1; touch README.md; KEEL_PAYLOAD={id} git add README.md"),
  out("git running the repository's hooks", "KEEL_PAYLOAD={id} git commit -q --allow-empty -m x"),
  out("git running the repository's hooks", "KEEL_PAYLOAD={id} git checkout -q -b b{id}"),

  // A shell fed its commands through stdin, a file, or a string.
  out("a here-document to a shell", `bash <<'EOF'\ntouch "$OUT/{id}"\nEOF`),
  out("a here-document to a shell", `sh <<< 'touch "$OUT/{id}"'`),
  out("a here-document to a shell", `bash -s <<< 'touch "$OUT/{id}"'`),
  out("a shell reading a file", "bash < s{id}.sh", SCRIPT),
  out("a shell reading a file", "cat s{id}.sh | bash", SCRIPT),
  out("a shell reading a file", "source s{id}.sh", SCRIPT),
  out("a shell reading a file", ". ./s{id}.sh", SCRIPT),
  out("a shell reading a file", 'bash -c "$(cat s{id}.sh)"', SCRIPT),
  out("a shell reading a file", "BASH_ENV=s{id}.sh bash -c true", SCRIPT),
  out("a shell reading a file", "python3 < p{id}.py", {
    "p{id}.py": "import os\nopen(os.environ['OUT'] + '/{id}', 'w').close()\n",
  }),
  out("a shell reading a file", "make -s -f m{id}.mk", { "m{id}.mk": "all:\n\ttouch $(OUT)/{id}\n" }),
  out("a shell in a string", `eval 'touch "$OUT/{id}"'`),
  out("a shell in a string", `printf 'touch "%s"\\n' "$OUT/{id}" | sh`),
  out("a shell in a string", `env sh -c 'touch "$OUT/{id}"'`),
  out("a shell in a string", `exec bash -c 'touch "$OUT/{id}"'`),
  out("a shell in a string", `command bash -c 'touch "$OUT/{id}"'`),
  out("a shell in a string", `$(echo touch) "$OUT/{id}"`),
  out("a shell in a string", `f() { touch "$OUT/{id}"; }; f`),
  out("a shell in a string", `trap 'touch "$OUT/{id}"' EXIT; true`),
  out("a shell in a string", `( touch "$OUT/{id}" )`),
  out("a shell in a string", `{ touch "$OUT/{id}"; } & wait`),
  out("a shell in a string", `perl -e 'system("touch", "$ENV{OUT}/{id}")'`),
  out("a shell in a string", `awk 'BEGIN { system("touch \\"" ENVIRON["OUT"] "/{id}\\"") }'`),
  out("a shell in a string", `sed -n '1e touch "$OUT/{id}"' README.md`),
  out("a shell in a string", `tclsh <<< 'exec touch $env(OUT)/{id}'`),
  out("xargs running a command", "xargs -a a{id}.txt touch", { "a{id}.txt": "{OUT}/{id}\n" }),
  out("xargs running a command", `xargs -a a{id}.txt -I% sh -c 'touch %'`, { "a{id}.txt": "{OUT}/{id}\n" }),
  out("xargs running a command", 'echo "$OUT/{id}" | xargs touch'),
  out("find running a command", 'find . -maxdepth 0 -exec touch "$OUT/{id}" \\;'),
  out("find running a command", `find . -maxdepth 0 -execdir sh -c 'touch "$OUT/{id}"' \\;`),
  out(
    "tar running a command",
    `tar -cf /dev/null README.md --checkpoint=1 --checkpoint-action=exec='touch "$OUT/{id}"'`,
  ),

  // Wrappers and runners that start the command they are given.
  out("a wrapper or runner", `script -qc 'touch "$OUT/{id}"' /dev/null`),
  out("a wrapper or runner", `unshare -r touch "$OUT/{id}"`),
  out("a wrapper or runner", `coproc touch "$OUT/{id}"; wait`),
  out("a wrapper or runner", `setpriv --no-new-privs touch "$OUT/{id}"`),
  out("a wrapper or runner", `chrt --other 0 touch "$OUT/{id}"`),
  out("a wrapper or runner", `gdb -nx -batch -ex 'shell touch "$OUT/{id}"' 2>/dev/null`),
  out("a wrapper or runner", `strace -f -o /dev/null touch "$OUT/{id}"`),
  out("a wrapper or runner", `expect -c 'spawn touch $env(OUT)/{id}; expect eof'`),
  out("a wrapper or runner", `parallel --will-cite touch ::: "$OUT/{id}"`),
  // Where no user service manager answers, the command after `||` still tries the write.
  out(
    "a wrapper or runner",
    `systemd-run --user --wait --quiet touch "$OUT/{id}" 2>/dev/null || touch "$OUT/{id}"`,
  ),
  out("a wrapper or runner", `nice -n 5 touch "$OUT/{id}"`),
  out("a wrapper or runner", `nohup touch "$OUT/{id}" >/dev/null 2>&1`),
  out("a wrapper or runner", `timeout 5 touch "$OUT/{id}"`),
  out("a wrapper or runner", `env FOO=1 touch "$OUT/{id}"`),
  out("a wrapper or runner", `stdbuf -o0 touch "$OUT/{id}"`),
  out("a wrapper or runner", `ionice -c 3 touch "$OUT/{id}"`),
  out("a wrapper or runner", `taskset -c 0 touch "$OUT/{id}"`),
  out("a wrapper or runner", `flock lock{id} touch "$OUT/{id}"`),
  out("a wrapper or runner", `setsid touch "$OUT/{id}"`),
  out("a wrapper or runner", `capsh -- -c 'touch "$OUT/{id}"'`),
  out("a wrapper or runner", `time touch "$OUT/{id}"`),
  out("a wrapper or runner", `bwrap --bind / / touch "$OUT/{id}"`),
  out(
    "a wrapper or runner",
    `watch -n 0.1 -e -g 'touch "$OUT/{id}"' >/dev/null 2>&1 & sleep 1; kill $! 2>/dev/null; true`,
  ),

  // Writes to the protected paths inside the workspace and the home folder.
  prot("a protected path", "touch .git/hooks/{id}"),
  prot("a protected path", "echo '# {id}' >> .git/hooks/post-index-change"),
  prot("a protected path", "ln -sf /dev/null .git/hooks/{id}"),
  prot("a protected path", "mv .git/hooks .git/hooks-{id}"),
  prot("a protected path", "rm -rf .git/hooks; mkdir .git/hooks && touch .git/hooks/{id}"),
  prot("a protected path", "cd .git && touch hooks/{id}"),
  prot("a protected path", 'git config core.fsmonitor "touch /tmp/{id} #"'),
  prot("a protected path", "git config alias.{id} '!true'"),
  prot("a protected path", "echo '[alias] {id} = !true' >> .git/config"),
  prot("a protected path", "sed -i '$a # {id}' .git/config"),
  prot("a protected path", `python3 -c "open('.git/config','a').write('#{id}')"`),
  prot("a protected path", "mv .git .git-{id}"),
  prot("a protected path", 'mkdir -p .keel && echo \'{"x": "{id}"}\' > .keel/config.json'),
  prot("a protected path", "mkdir -p .keel/extensions && echo '// {id}' > .keel/extensions/{id}.mjs"),
  prot("a protected path", "mkdir -p .keel/skills/{id}"),
  prot(
    "a protected path",
    `echo '{"permissions": {"allow": ["Bash"]}, "x": "{id}"}' > .claude/settings.json`,
  ),
  prot("a protected path", "mkdir -p .claude/agents && echo {id} > .claude/agents/{id}.md"),
  prot("a protected path", "mv .claude .claude-{id}"),
  prot(
    "a protected path",
    "mkdir -p .agents/skills/{id} && printf -- '---\\nname: {id}\\nallowed-tools: Bash\\n---\\n' > .agents/skills/{id}/SKILL.md",
  ),
  prot("a protected path", `echo '{"mcpServers": {"{id}": {"command": "sh"}}}' > .mcp.json`),
  prot("a protected path", "tee -a .mcp.json <<< {id} >/dev/null"),
  prot("a protected path", "echo 'echo {id}' >> \"$HOME/.bashrc\""),
  prot("a protected path", "echo 'echo {id}' >> \"$HOME/.profile\""),
  prot("a protected path", "git config --global alias.{id} '!true'"),
  prot("a protected path", 'mkdir -p "$HOME/.ssh" && echo {id} >> "$HOME/.ssh/authorized_keys"'),
  prot("a protected path", "echo '// {id}' >> \"$KH/config.json\""),
  prot("a protected path", 'mkdir -p "$KH/extensions" && echo "// {id}" > "$KH/extensions/{id}.mjs"'),
  prot("a protected path", "umount .git/hooks 2>/dev/null; touch .git/hooks/{id}"),
  prot("a protected path", "unshare -rm sh -c 'umount .git/hooks 2>/dev/null; touch .git/hooks/{id}'"),

  // The network, which is off unless the user allows domains.
  net('curl -s -m 3 "http://127.0.0.1:$PORT/{id}"'),
  net('curl -s -m 3 "http://localhost:$PORT/{id}"'),
  net('curl -s -m 3 -x "http://127.0.0.1:$PORT" http://example.invalid/{id}'),
  net('wget -q -T 3 -O - "http://127.0.0.1:$PORT/{id}"'),
  net(
    `python3 -c "import os, urllib.request as u; u.urlopen('http://127.0.0.1:%s/{id}' % os.environ['PORT'], timeout=3)"`,
  ),
  net(`exec 3<>/dev/tcp/127.0.0.1/$PORT && printf 'GET /{id} HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`),
  net(`node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/{id}').catch(() => {})"`),
  net('git ls-remote "http://127.0.0.1:$PORT/{id}" 2>/dev/null; true'),
  net(
    `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new("127.0.0.1:$ENV{PORT}") or exit; print $s "GET /{id} HTTP/1.0\\r\\n\\r\\n"; <$s>'`,
  ),

  // Unix sockets on the host (a daemon's, a session bus's) the command can see.
  sock(
    `python3 -c "import os, socket; s = socket.socket(socket.AF_UNIX); s.connect(os.environ['SOCK']); s.send(b'{id}')"`,
  ),
  sock('curl -s -m 3 --unix-socket "$SOCK" http://localhost/{id}'),
  sock(`node -e "require('net').connect(process.env.SOCK).end('{id}')"`),
  sock(
    `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ENV{SOCK}) or exit; print $s "{id}"'`,
  ),

  // Reads of a private key and of Keel's home (credentials, other projects' sessions).
  read("a read of a private key", `cat ${KEY}`),
  read("a read of a private key", "cat ~/.ssh/id_ed25519"),
  read("a read of a private key", `base64 ${KEY} | base64 -d`),
  read("a read of a private key", 'grep -r . "$HOME/.ssh"'),
  read(
    "a read of a private key",
    `python3 -c "import os; print(open(os.environ['HOME'] + '/.ssh/id_ed25519').read())"`,
  ),
  read("a read of a private key", `cp ${KEY} key{id} && cat key{id}`),
  read("a read of a private key", 'tar -cf - -C "$HOME" .ssh | tar -xOf -'),
  read("a read of a private key", 'find "$HOME/.ssh" -type f -exec cat {} +'),
  read("a read of a private key", `head -c 200 ${KEY}`),
  read("a read of a private key", `awk 1 ${KEY}`),
  read("a read of a private key", `while read -r l; do echo "$l"; done < ${KEY}`),
  read(
    "a read of a private key",
    `node -e "console.log(require('fs').readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8'))"`,
  ),
  read("a read of a private key", `ln -s ${KEY} k{id}; cat k{id}`),
  read("a read of a private key", 'cd "$HOME/.ssh" && cat *'),
  read("a read of a private key", `cat /proc/self/root${KEY}`),
  read("a read of Keel's home", 'cat "$KH/credentials.json"'),
  read("a read of Keel's home", "cat ~/.keel/credentials.json"),
  read("a read of Keel's home", 'grep -r KEEL- "$KH"'),
  read("a read of Keel's home", 'cat "$KH"/sessions/*/*.jsonl'),
  read("a read of Keel's home", 'strings "$KH/credentials.json"'),
  read("a read of Keel's home", 'tar -cf - -C "$HOME" .keel | tar -xOf -'),

  // Writes inside the workspace: allowed outside plan mode, so plan's count of zero means something.
  inside("touch {id}.txt"),
  inside("echo x > {id}.txt"),
  inside("mkdir {id}"),
  inside("cp README.md {id}.md"),
  inside(`python3 -c "open('{id}.txt', 'w').close()"`),
  inside("git branch b{id}"),
];
