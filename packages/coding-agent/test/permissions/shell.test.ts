// The pieces the Bash judgement is built from: option scanning, the reader table, sed and awk
// program checks, git config inertness, glob expansion, physical path resolution, and what the
// environment commands start with.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexHook } from "../../src/permissions/git-hooks.js";
import { configRisk } from "../../src/permissions/git-repo.js";
import { expandGlob, GLOB_LIMITS } from "../../src/permissions/glob-expand.js";
import { realpathLoose } from "../../src/permissions/paths.js";
import { optionTable, scanOptions } from "../../src/permissions/shell/options.js";
import type { ShellWord } from "../../src/permissions/shell/parser.js";
import { NOT_READERS, READERS } from "../../src/permissions/shell/readers.js";
import { checkAwkProgram, checkSedScript } from "../../src/permissions/shell/scripts.js";
import { decide } from "./declared.js";
import { makePermissionFixture, type PermissionFixture } from "./fixture.js";

const w = (value: string): ShellWord => ({ value, static: true, raw: value, tilde: false });
const argv = (line: string) => line.split(" ").map(w);

describe("option scanning (GNU getopt_long)", () => {
  const table = optionTable([
    "-a --all",
    "-o --output: write",
    "-k --key: value",
    "--compress-program: run",
    "--check: optional",
  ]);
  const scan = (line: string) => scanOptions(argv(line), table);
  const scanned = (line: string) => scan(line)._unsafeUnwrap();

  it("splits clusters, attached and separate values, and stops at --", () => {
    const s = scanned("-ao out.txt -kx file -- -a");
    expect(s.options.map((o) => `${o.name}=${o.value?.value ?? ""}`)).toEqual(["-a=", "-o=out.txt", "-k=x"]);
    expect(s.operands.map((o) => o.value)).toEqual(["file", "-a"]);
    const attached = scanned("-aoout.txt");
    expect(attached.options[1]).toMatchObject({
      name: "-o",
      kind: "write",
      value: { value: "out.txt" },
    });
  });

  it("resolves unique prefixes of long options, as getopt_long does", () => {
    const s = scanned("--comp=./x --out y --al");
    expect(s.options.map((o) => `${o.name}:${o.kind}`)).toEqual([
      "--compress-program:run",
      "--output:write",
      "--all:flag",
    ]);
  });

  it("takes the worst candidate of an ambiguous prefix", () => {
    const t = optionTable(["--color: optional", "--compress: run"]);
    const s = scanOptions(argv("--co x"), t)._unsafeUnwrap();
    expect(s.options[0]?.kind).toBe("run");
  });

  it("refuses options it does not know, and values where none are taken", () => {
    expect(scan("--zzz")._unsafeUnwrapErr()).toEqual({
      type: "unscannable",
      message: "the option --zzz is not in the checker's table",
    });
    expect(scan("-z")._unsafeUnwrapErr().message).toBe("the option -z is not in the checker's table");
    expect(scan("--all=1")._unsafeUnwrapErr().message).toBe("--all takes no value");
    expect(scan("-o")._unsafeUnwrapErr().message).toBe("-o needs a value");
  });

  it("an optional value is only taken when attached", () => {
    const s = scanned("--check file");
    expect(s.options[0]?.value).toBeUndefined();
    expect(s.operands.map((o) => o.value)).toEqual(["file"]);
  });
});

describe("the reader table", () => {
  it("names the man page and version of every row, and every non-reader's reason", () => {
    for (const [name, spec] of READERS) expect(spec.source, name).toMatch(/\(1\).* \d+(\.\d+)*/);
    for (const [name, why] of NOT_READERS) expect(why.length, name).toBeGreaterThan(10);
  });

  it("parses every row (tables are parsed on first use, so a bad line fails here, not at import)", () => {
    for (const [name, spec] of READERS) expect(() => spec.options.short, name).not.toThrow();
    const bad = optionTable(["--ok", "--x: sometimes"]);
    expect(() => bad.long).toThrow('unknown option kind in "--x: sometimes"');
  });

  it("knows the options that run, write or follow of the commands issue 10 names", () => {
    const kind = (cmd: string, opt: string) => {
      const t = READERS.get(cmd)!.options;
      return opt.startsWith("--") ? t.long.get(opt.slice(2)) : t.short.get(opt.slice(1));
    };
    expect(kind("sort", "--compress-program")).toBe("run");
    expect(kind("sort", "-o")).toBe("write");
    expect(kind("rg", "--pre")).toBe("run");
    expect(kind("tree", "-o")).toBe("write");
    expect(kind("file", "-C")).toBe("writes");
    expect(kind("grep", "-R")).toBe("follows");
    expect(kind("sed", "-i")).toBe("writesOptional");
    expect(kind("awk", "-l")).toBe("run");
    expect(kind("diff", "-r")).toBe("follows");
  });
});

describe("sed scripts", () => {
  it.each([
    "1,20p",
    "s/a/b/g",
    "s|a|b|2",
    "s/[0-9]x/y/",
    "/x/,/y/{p;=}",
    "0~3d",
    "$!N;P;D",
    "y/abc/xyz/",
    "1i\\\nhello",
    ":a;N;$!ba;s/\\n/ /g",
    "s/a/b/I",
  ])("reads only: %s", (script) => {
    expect(checkSedScript(script).isOk()).toBe(true);
  });

  it.each([
    ["1e ls", /e runs/],
    ["s/a/ls/e", /s\/\/\/e/],
    ["s/a/b/ e", /s\/\/\/e/],
    ["s/a/b/gw out", /s\/\/\/w/],
    ["1w out", /w writes/],
    ["$W out", /W writes/],
    ["1!e", /e runs/],
    ["s/a[/]b/c/", /could not be read/],
    ["k", /not one the checker knows/],
  ])("not read-only: %s", (script, why) => {
    expect(checkSedScript(script)._unsafeUnwrapErr().message).toMatch(why);
  });

  it("reports the files r and R read", () => {
    expect(checkSedScript("1r /etc/passwd\n$R other.txt")._unsafeUnwrap()).toEqual([
      "/etc/passwd",
      "other.txt",
    ]);
  });
});

describe("awk programs", () => {
  it.each([
    "{ print $1 }",
    "NR > 1",
    '$3 > 100 && $2 == "x" || /y/',
    'BEGIN { FS = "," } { s += $2 } END { printf "%d\\n", s }'.replace(">", ""),
  ])("reads only: %s", (program) => expect(checkAwkProgram(program).isOk()).toBe(true));
  it.each([
    'BEGIN { system("id") }',
    '{ print | "sh" }',
    '{ print |& "sh" }',
    '"date" | getline d',
    '{ getline line < "/etc/passwd" }',
    '{ print > "out" }',
    '{ printf "%s", $0 >> "out" }',
    '@load "x"',
    'BEGIN { f = "system"; @f("id") }',
  ])("not read-only: %s", (program) => expect(checkAwkProgram(program).isErr()).toBe(true));
});

describe("git config inertness", () => {
  it("passes what git clone, husky and editors write", () => {
    const config = [
      "[core]",
      "\trepositoryformatversion = 0",
      "\tfilemode = true",
      "\tbare = false",
      "\tlogallrefupdates = true",
      "\thooksPath = .husky/_",
      '[remote "origin"]',
      "\turl = git@github.com:x/y.git",
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[branch "main"]',
      "\tremote = origin",
      "\tmerge = refs/heads/main",
      "\tvscode-merge-base = origin/main",
      "[user]",
      "\temail = a@b.c ; a comment",
      "[core] fsmonitor = false",
    ].join("\n");
    expect(configRisk(config)).toBeUndefined();
  });

  it.each([
    ["[diff]\n\texternal = ./x", "diff.external"],
    ['[diff "pdf"]\n\ttextconv = ./x', "diff.pdf.textconv"],
    ["[core]\n\tfsmonitor = ./hook", "core.fsmonitor"],
    ["[core]\n\tpager = less", "core.pager"],
    ["[pager]\n\tlog = ./x", "pager.log"],
    ['[filter "lfs"]\n\tclean = x', "filter.lfs.clean"],
    ["[include]\n\tpath = ../other", "include.path"],
    ['[includeIf "gitdir:/"]\n\tpath = x', "includeif.gitdir:/.path"],
    ["[core]\n\tsshCommand = x", "core.sshcommand"],
    ["[gpg]\n\tprogram = x", "gpg.program"],
    ["[log]\n\tshowSignature = true", "log.showsignature"],
    ["[core]\n\tworktree = /", "core.worktree"],
    ['[remote "o"]\n\tuploadpack = ./x', "remote.o.uploadpack"],
    ["[core.x]\n\tfoo = 1", "core.x.foo"],
    ["[diff]\n\tnoprefix = true\n\texternal = \\\n  ./x", "diff.external"],
  ])("names what can run: %s", (text, key) => {
    expect(configRisk(text)).toBe(key);
  });

  it("refuses what it cannot parse", () => {
    expect(configRisk("[core\nbare = true")).toMatch(/did not recognise/);
    expect(configRisk("orphan = 1")).toMatch(/did not recognise/);
  });
});

describe("globs, links and the environment", () => {
  let dir: string;
  let fx: PermissionFixture;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "keel-glob-"));
    mkdirSync(join(dir, "a", "sub"), { recursive: true });
    writeFileSync(join(dir, "a", "x.ts"), "");
    writeFileSync(join(dir, "a", ".hidden"), "");
    writeFileSync(join(dir, "a", "sub", "y.ts"), "");
    symlinkSync(join(dir, "a"), join(dir, "link"));
    symlinkSync(join(dir, "nowhere", "file"), join(dir, "dangling"));
    symlinkSync(join(dir, "loop2"), join(dir, "loop1"));
    symlinkSync(join(dir, "loop1"), join(dir, "loop2"));
    fx = makePermissionFixture();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    fx.cleanup();
  });

  it("expands like bash: no dot files for *, through symlinked dirs, classes, literal escapes", () => {
    expect(expandGlob("a/*", dir)._unsafeUnwrap()).toEqual(["a/sub", "a/x.ts"]);
    expect(expandGlob("*/x.ts", dir)._unsafeUnwrap()).toEqual(["a/x.ts", "link/x.ts"]);
    expect(expandGlob("a/[sx]*", dir)._unsafeUnwrap()).toEqual(["a/sub", "a/x.ts"]);
    expect(expandGlob("a/[!s]*", dir)._unsafeUnwrap()).toEqual(["a/x.ts"]);
    expect(expandGlob("a/\\*", dir)._unsafeUnwrap()).toEqual(["a/*"]);
    expect(expandGlob("nothing/*", dir)._unsafeUnwrap()).toEqual([]);
  });

  it("lets .* match .. (as older bash does), and refuses POSIX classes", () => {
    const dots = expandGlob("a/.*", dir);
    expect(dots._unsafeUnwrap()).toEqual(["a/.", "a/..", "a/.hidden"]);
    expect(expandGlob("[[:alpha:]]", dir)._unsafeUnwrapErr()).toEqual({
      type: "unexpandable_glob",
      message: "the pattern [[:alpha:]] uses a character class the checker does not expand",
    });
    expect(GLOB_LIMITS.matches).toBeGreaterThan(0);
  });

  it("resolves where the OS would go: dangling links, .. after a link, loops", () => {
    expect(realpathLoose(join(dir, "dangling"))).toBe(join(dir, "nowhere", "file"));
    expect(realpathLoose(`${dir}/link/sub/../x.ts`)).toBe(join(dir, "a", "x.ts"));
    expect(realpathLoose(`${dir}/link/../a`)).toBe(join(dir, "a"));
    expect(typeof realpathLoose(join(dir, "loop1"))).toBe("string");
  });

  it("paths that fail to resolve (ENOTDIR, ELOOP, dangling) are judged, not thrown", async () => {
    for (const command of ["cat a/x.ts/nope", "cat loop1/* loop2", "echo x > dangling", "ls */* link/../a"]) {
      const d = await decide({
        tool: "Bash",
        args: { command },
        mode: "default",
        rules: [],
        workspace: dir,
        userHome: dir,
      });
      expect(["allow", "ask"], command).toContain(d.behavior);
    }
  });

  const bash = (command: string, shellEnv: Record<string, string | undefined>) =>
    decide({
      tool: "Bash",
      args: { command },
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      shellEnv,
    });

  it("an exported CDPATH makes cd's destination unknown", async () => {
    expect((await bash("cd src && cat a.ts", {})).behavior).toBe("allow");
    const withCdpath = await bash("cd src && cat a.ts", { CDPATH: ".." });
    expect(withCdpath.behavior).toBe("ask");
    expect(withCdpath.reason).toMatch(/only known when the shell runs/);
  });

  it("GIT_DIR or GIT_CONFIG_* in the environment make git reads ask", async () => {
    expect((await bash("git status", {})).behavior).toBe("allow");
    for (const env of [
      { GIT_DIR: "/tmp/x" },
      { GIT_CONFIG_PARAMETERS: "'core.pager=x'" },
      { GIT_EXTERNAL_DIFF: "x" },
    ]) {
      const d = await bash("git status", env);
      expect(d.behavior).toBe("ask");
      expect(d.reason).toMatch(/environment sets GIT_/);
    }
  });
});

describe("the post-index-change hook git status and diff can run", () => {
  it("is found where core.hooksPath leads, even from a file the user's config includes", () => {
    const root = mkdtempSync(join(tmpdir(), "keel-hooks-"));
    try {
      const home = join(root, "home");
      const ws = join(root, "ws");
      mkdirSync(join(ws, ".git"), { recursive: true });
      mkdirSync(join(ws, ".husky"));
      mkdirSync(home);
      writeFileSync(join(home, ".gitconfig"), "[include]\n\tpath = ~/.gitconfig-work\n");
      writeFileSync(join(home, ".gitconfig-work"), "[core]\n\thooksPath = .husky\n");
      const hook = join(ws, ".husky", "post-index-change");
      writeFileSync(hook, "#!/bin/sh\n", { mode: 0o644 });
      // Not executable: git would not run it.
      expect(indexHook(ws, home, {})).toBeUndefined();
      chmodSync(hook, 0o755);
      expect(indexHook(ws, home, {})).toBe(hook);
      // The user's config is found under XDG_CONFIG_HOME too.
      rmSync(join(home, ".gitconfig"));
      expect(indexHook(ws, home, {})).toBeUndefined();
      mkdirSync(join(root, "xdg", "git"), { recursive: true });
      writeFileSync(join(root, "xdg", "git", "config"), "[core]\n\thooksPath = .husky\n");
      expect(indexHook(ws, home, { XDG_CONFIG_HOME: join(root, "xdg") })).toBe(hook);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
