// A real temp tree for permission tests: a git workspace with hostile corners (nested and bare
// repositories whose config runs a program, symlinks out, a dangling link, a fake `ls`, git
// config a variable can point at), a fake home with a key, an outside dir, a second workspace
// whose own .git/config is hostile, and two whose repositories have a post-index-change hook.
// Symlinks are relative (but one into the home `~` names), so a copy is a tree of its own.
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PermissionFixture {
  root: string;
  workspace: string;
  /** A workspace whose top-level .git/config runs ./evil.sh (a repository unpacked from an archive). */
  hostile: string;
  /** A workspace whose repository has a post-index-change hook in .git/hooks (it touches PWNED). */
  hooked: string;
  /** A workspace whose core.hooksPath names a committed folder holding a post-index-change hook. */
  hookspath: string;
  home: string;
  keelHome: string;
  outside: string;
  cleanup(): void;
}

/** Contents the end-to-end suite looks for in what reached the model. */
export const SECRETS = {
  inside: "KEEL-INSIDE-CONTENT",
  outside: "KEEL-SECRET-OUTSIDE",
  ssh: "KEEL-SECRET-SSH",
  workspace: "KEEL-SECRET-WS",
  private: "KEEL-SECRET-PRIVATE",
} as const;

/** Touches PWNED next to itself; as a compressor (no args or -d) it passes stdin through. */
const EVIL =
  '#!/bin/sh\ntouch "$(dirname "$0")/PWNED"\nif [ $# -eq 0 ] || [ "$1" = "-d" ]; then exec cat; fi\nexit 0\n';

function git(cwd: string, ...args: string[]) {
  execFileSync("git", ["-c", "user.name=k", "-c", "user.email=k@k", ...args], { cwd, stdio: "ignore" });
}

function file(path: string, text: string, mode?: number) {
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/** A repository with one commit of f.txt and an uncommitted change to it, so diff and status have work. */
function repo(dir: string, bare?: string) {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "--template=", ".");
  file(join(dir, "f.txt"), "one\n");
  git(dir, "add", "f.txt");
  git(dir, "commit", "-qm", "one");
  file(join(dir, "f.txt"), "one\ntwo\n");
  if (bare) {
    git(dir, "commit", "-qam", "two");
    git(dir, "clone", "-q", "--bare", "--template=", ".", bare);
  }
}

export function makePermissionFixture(): PermissionFixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "keel-perm-")));
  const workspace = join(root, "ws");
  const hostile = join(root, "hostile");
  const hooked = join(root, "hooked");
  const hookspath = join(root, "hookspath");
  const home = join(root, "home");
  const outside = join(root, "outside");
  for (const d of [
    join(workspace, "src"),
    join(workspace, "docs"),
    join(workspace, "secrets"),
    join(workspace, "cmp"),
    join(workspace, "vendor"),
    join(home, ".ssh"),
    join(home, ".keel"),
    outside,
  ]) {
    mkdirSync(d, { recursive: true });
  }
  repo(workspace);
  file(join(workspace, "src", "a.ts"), `export const A = "${SECRETS.inside}";\n`);
  file(join(workspace, "src", "private.txt"), `${SECRETS.private}\n`);
  file(join(workspace, "cmp", "innocent.ts"), "a regular file\n");
  file(join(workspace, "secrets", "key.txt"), `${SECRETS.workspace}\n`);
  file(join(workspace, "data.txt"), "b\na\n");
  file(join(workspace, "victim.txt"), "delete me\n");
  file(join(workspace, "evil.sh"), EVIL, 0o755);
  // A program named like a reader: `./ls` or a PATH with `.` in front runs this, not /bin/ls.
  file(join(workspace, "ls"), EVIL, 0o755);
  file(join(workspace, "prog.awk"), '{ print "from a file" }\n');
  // A file named like an option: a glob hands it to the command as one.
  mkdirSync(join(workspace, "inj"));
  file(join(workspace, "inj", "data.txt"), "b\na\n");
  file(join(workspace, "inj", "--output=pwned.txt"), "");
  file(join(workspace, "from-tar.txt"), "packed\n");
  execFileSync("tar", ["-cf", "archive.tar", "from-tar.txt"], { cwd: workspace });
  rmSync(join(workspace, "from-tar.txt"));
  file(join(home, ".ssh", "id_rsa"), `${SECRETS.ssh}\n`);
  file(join(home, ".bashrc"), "# rc\n");
  file(join(outside, "secret.txt"), `${SECRETS.outside}\n`);
  // Links inside the workspace that point outside it, one that stays inside, one that dangles.
  symlinkSync("../outside", join(workspace, "link-out"));
  symlinkSync("../../outside/secret.txt", join(workspace, "src", "innocent.ts"));
  symlinkSync("../docs", join(workspace, "src", "docs-link"));
  // Absolute on purpose: copies for end-to-end runs keep pointing at the one home `~` names.
  symlinkSync(join(home, ".ssh", "id_rsa"), join(workspace, "id-link"));
  symlinkSync("../outside/landed.txt", join(workspace, "dangling"));

  // A nested repository (its own .git) and a bare one, both configured to run ../evil.sh.
  repo(join(workspace, "nested"));
  git(join(workspace, "nested"), "config", "diff.external", "../evil.sh");
  git(join(workspace, "nested"), "config", "core.fsmonitor", "../evil.sh");
  const scratch = join(root, "scratch");
  repo(scratch, join(workspace, "vendor", "bare"));
  rmSync(scratch, { recursive: true, force: true });
  git(join(workspace, "vendor", "bare"), "config", "diff.external", "../../evil.sh");

  // Shell text a payload feeds a shell, a list of names for xargs -a, and configuration a
  // variable can point git at (XDG_CONFIG_HOME=cfg, HOME=cfg/home).
  file(join(workspace, "rm-victim.sh"), "rm victim.txt\n");
  file(join(workspace, "victim-list.txt"), "victim.txt\n");
  mkdirSync(join(workspace, "cfg", "git"), { recursive: true });
  mkdirSync(join(workspace, "cfg", "home"), { recursive: true });
  const gitEvil = "[core]\n\tfsmonitor = ./evil.sh\n[diff]\n\texternal = ./evil.sh\n";
  file(join(workspace, "cfg", "git", "config"), gitEvil);
  file(join(workspace, "cfg", "home", ".gitconfig"), gitEvil);

  // Repositories whose reads write the index and so run a post-index-change hook.
  // Each has a clean tracked file: touching it gives git's index refresh something to write.
  const hook = "#!/bin/sh\ntouch PWNED\n";
  for (const dir of [hooked, hookspath]) {
    repo(dir);
    file(join(dir, "clean.txt"), "clean\n");
    git(dir, "add", "clean.txt");
    git(dir, "commit", "-qm", "clean");
  }
  mkdirSync(join(hooked, ".git", "hooks"));
  file(join(hooked, ".git", "hooks", "post-index-change"), hook, 0o755);
  mkdirSync(join(hookspath, ".githooks"));
  file(join(hookspath, ".githooks", "post-index-change"), hook, 0o755);
  git(hookspath, "config", "core.hooksPath", ".githooks");

  // The workspace's own repository as a hostile archive would ship it.
  repo(hostile);
  file(join(hostile, "evil.sh"), EVIL, 0o755);
  git(hostile, "config", "core.fsmonitor", "./evil.sh");
  git(hostile, "config", "diff.external", "./evil.sh");

  return {
    root,
    workspace,
    hostile,
    hooked,
    hookspath,
    home,
    keelHome: join(home, ".keel"),
    outside,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A fresh copy of a fixture at `dir` (symlinks kept as links), for end-to-end runs. `cp -a` in a
 * child is several times faster than fs.cpSync and leaves the event loop free meanwhile.
 */
export async function copyPermissionFixture(fx: PermissionFixture, dir: string): Promise<PermissionFixture> {
  await new Promise<void>((resolve, reject) =>
    execFile("cp", ["-a", fx.root, dir], (error) => (error ? reject(error) : resolve())),
  );
  const root = realpathSync(dir);
  return {
    root,
    workspace: join(root, "ws"),
    hostile: join(root, "hostile"),
    hooked: join(root, "hooked"),
    hookspath: join(root, "hookspath"),
    home: join(root, "home"),
    keelHome: join(root, "home", ".keel"),
    outside: join(root, "outside"),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
