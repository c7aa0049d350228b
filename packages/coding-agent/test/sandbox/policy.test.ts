// The policy per mode and its two translations, as data: bubblewrap's arguments (whose effects
// effects.test.ts checks for real) and the Seatbelt profile (macOS, which cannot run here: its
// text is what is tested, and the README says so).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WORKSPACE_PROTECTED } from "../../src/permissions/protected-paths.js";
import { bwrapArgs } from "../../src/sandbox/bwrap.js";
import { type PolicyInput, sandboxPolicy } from "../../src/sandbox/policy.js";
import { sbString, seatbeltProfile } from "../../src/sandbox/seatbelt.js";
import { unixSocketFilter } from "../../src/sandbox/seccomp.js";

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

function machine(): PolicyInput {
  base = realpathSync(mkdtempSync(join(tmpdir(), "keel-policy-")));
  const workspace = join(base, "ws");
  const userHome = join(base, "home");
  mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
  writeFileSync(join(workspace, ".git", "config"), "");
  mkdirSync(join(userHome, ".ssh"), { recursive: true });
  mkdirSync(join(userHome, ".keel"), { recursive: true });
  return {
    mode: "default",
    workspace,
    cwd: workspace,
    userHome,
    keelHome: join(userHome, ".keel"),
    privateTmp: join(base, "tmp"),
    networkAllowed: false,
  };
}

const ASSETS = { emptyDir: "/E", emptyFile: "/F" };

describe("the policy", () => {
  it("plan: nothing writable, a fresh /tmp, no network; secrets hidden", () => {
    const input = machine();
    const policy = sandboxPolicy({ ...input, mode: "plan", networkAllowed: true });
    expect(policy.writable).toEqual([]);
    expect(policy.tmp).toEqual({ kind: "ephemeral" });
    expect(policy.network).toBe("none");
    expect(policy.hidden.map((h) => h.path)).toEqual([input.keelHome, join(input.userHome, ".ssh")]);
    expect(policy.visible).toEqual([input.workspace]);
  });

  it("default: the workspace writable, every protected path read-only inside it, .git pinned", () => {
    const input = machine();
    const policy = sandboxPolicy(input);
    expect(policy.writable).toEqual([input.workspace]);
    expect(policy.readOnly.map((e) => [e.path.slice(input.workspace.length + 1), e.exists])).toEqual(
      WORKSPACE_PROTECTED.map((p) => [p, p.startsWith(".git/")]),
    );
    expect(policy.pinned).toEqual([join(input.workspace, ".git")]);
    expect(policy.tmp).toEqual({ kind: "private", dir: input.privateTmp });
    expect(policy.network).toBe("none");
    expect(sandboxPolicy({ ...input, networkAllowed: true }).network).toBe("proxy");
  });

  it("a workspace that is the home folder keeps rc files, credentials and Keel's home read-only", () => {
    const input = machine();
    writeFileSync(join(input.userHome, ".bashrc"), "");
    const policy = sandboxPolicy({ ...input, workspace: input.userHome, cwd: input.userHome });
    const kept = policy.readOnly.map((e) => e.path);
    for (const name of [".bashrc", ".ssh", ".keel", ".gitconfig", ".config"])
      expect(kept, name).toContain(join(input.userHome, name));
    expect(policy.hidden.map((h) => h.path)).toContain(input.keelHome);
  });

  it("a linked worktree may commit into its git directories, but not touch their hooks or config", () => {
    const input = machine();
    const main = join(base, "main");
    execFileSync("git", ["init", "-q", main]);
    execFileSync("git", [
      "-C",
      main,
      "-c",
      "user.email=a@b",
      "-c",
      "user.name=a",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    ]);
    const tree = join(base, "tree");
    execFileSync("git", ["-C", main, "worktree", "add", "-q", tree]);
    const policy = sandboxPolicy({ ...input, workspace: tree, cwd: tree });
    const gitDir = join(main, ".git", "worktrees", "tree");
    expect(policy.writable).toEqual([tree, gitDir, join(main, ".git")]);
    const kept = policy.readOnly.map((e) => e.path);
    expect(kept).toContain(join(tree, ".git"));
    expect(kept).toContain(join(main, ".git", "hooks"));
    expect(kept).toContain(join(main, ".git", "config"));
  });

  it("adds the user's extra writable paths and Read deny paths", () => {
    const input = machine();
    const cache = join(base, "cache");
    const policy = sandboxPolicy({
      ...input,
      allowWrite: [cache],
      readDenied: [join(input.workspace, ".git")],
    });
    expect(policy.writable).toEqual([input.workspace, cache]);
    expect(policy.hidden.map((h) => h.path)).toContain(join(input.workspace, ".git"));
  });
});

describe("bubblewrap's arguments", () => {
  it("mount the read-only root first, then /tmp, what is writable, what is pinned, kept and hidden", () => {
    const input = machine();
    const policy = sandboxPolicy(input);
    const args = bwrapArgs(policy, ASSETS, { disableUserns: true, seccompFd: 3 });
    const text = args.join(" ");
    for (const flag of ["--die-with-parent", "--unshare-all", "--unshare-user", "--disable-userns"])
      expect(args).toContain(flag);
    expect(text).toContain("--cap-drop ALL");
    expect(text).toContain("--seccomp 3");
    expect(args).not.toContain("--share-net");
    const at = (needle: string) => text.indexOf(needle);
    expect(at("--ro-bind / /")).toBeLessThan(at(`--bind ${input.privateTmp} /tmp`));
    expect(at(`--bind ${input.privateTmp} /tmp`)).toBeLessThan(
      at(`--bind ${input.workspace} ${input.workspace}`),
    );
    const git = join(input.workspace, ".git");
    expect(at(`--bind ${input.workspace} `)).toBeLessThan(at(`--bind ${git} ${git}`));
    expect(at(`--bind ${git} ${git}`)).toBeLessThan(at(`--ro-bind ${git}/hooks ${git}/hooks`));
    // Missing ones are held by the empty folder; hidden ones come last.
    expect(text).toContain(`--ro-bind /E ${join(input.workspace, ".keel")}`);
    expect(at(`--ro-bind /E ${input.keelHome}`)).toBeGreaterThan(at(`--ro-bind ${git}/config`));
    expect(args.slice(-5)).toEqual(["--setenv", "TMPDIR", "/tmp", "--chdir", input.workspace]);
  });

  it("plan mode: a tmpfs /tmp and the workspace shown read-only", () => {
    const input = machine();
    const text = bwrapArgs(sandboxPolicy({ ...input, mode: "plan" }), ASSETS, { disableUserns: false }).join(
      " ",
    );
    expect(text).toContain("--tmpfs /tmp");
    expect(text).toContain(`--ro-bind ${input.workspace} ${input.workspace}`);
    expect(text).not.toContain(`--bind ${input.workspace}`);
    expect(text).not.toContain("--disable-userns");
  });
});

describe("the seccomp filter", () => {
  it("is a whole number of BPF instructions for the architectures Keel knows, none for others", () => {
    for (const arch of ["x64", "arm64"]) {
      const filter = unixSocketFilter(arch)!;
      expect(filter.length % 8).toBe(0);
      // The last instruction returns EPERM (SECCOMP_RET_ERRNO | 1), the one before it allows.
      expect(filter.readUInt32LE(filter.length - 4)).toBe(0x00050001);
      expect(filter.readUInt32LE(filter.length - 12)).toBe(0x7fff0000);
    }
    expect(unixSocketFilter("riscv64")).toBeUndefined();
  });
});

describe("the Seatbelt profile (macOS)", () => {
  it("denies by default, hides secrets, writes only writable roots minus protected paths", () => {
    const input = machine();
    const policy = sandboxPolicy(input);
    const profile = seatbeltProfile(policy, { tmpDir: "/private/tmp/keel-x" });
    const lines = profile.trim().split("\n");
    expect(lines.slice(0, 2)).toEqual(["(version 1)", "(deny default)"]);
    // Seatbelt is last-match-wins: the hiding comes after the general read allowance.
    const readAll = lines.indexOf("(allow file-read*)");
    const hide = lines.findIndex((l) => l.startsWith("(deny file-read*"));
    expect(readAll).toBeGreaterThan(-1);
    expect(hide).toBeGreaterThan(readAll);
    expect(lines[hide]).toContain(`(subpath ${sbString(input.keelHome)})`);
    const write = lines.find((l) => l.startsWith("(allow file-write*"))!;
    expect(write).toContain(`(subpath ${sbString(input.workspace)})`);
    expect(write).toContain(`(subpath ${sbString("/private/tmp/keel-x")})`);
    expect(write).toMatch(/\(require-not \(require-any .*\.git\/hooks.*\.mcp\.json.*\)\)/);
    // Hidden folders cannot be moved elsewhere to be read there either.
    expect(write).toContain(`(require-not (require-any`);
    expect(write.slice(write.indexOf("require-not"))).toContain(sbString(input.keelHome));
    expect(profile).not.toContain("network-outbound");
    expect(profile).not.toMatch(/\(allow mach-lookup\)/);
  });

  it("plan mode writes only its temporary folder; the proxy is the only way out", () => {
    const input = machine();
    const plan = seatbeltProfile(sandboxPolicy({ ...input, mode: "plan" }), { tmpDir: "/t" });
    const write = plan.split("\n").find((l) => l.startsWith("(allow file-write*"))!;
    expect(write).not.toContain(sbString(input.workspace));
    expect(write).toContain(`(subpath "/t")`);
    const net = seatbeltProfile(sandboxPolicy({ ...input, networkAllowed: true }), {
      tmpDir: "/t",
      proxyPort: 4321,
    });
    expect(net).toContain('(allow network-outbound (remote ip "localhost:4321"))');
  });

  it("quotes paths so a folder name cannot end the string", () => {
    expect(sbString('/a"b\\c')).toBe('"/a\\"b\\\\c"');
  });
});
