// Trust store basics, the legacy hash entries written before the surface was recorded are
// checked against, and where the project root is.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashProject } from "../../src/trust/hash.js";
import { findProjectRoot } from "../../src/trust/root.js";
import { trustProject, trustStatus, untrustProject } from "../../src/trust/store.js";

let root: string;
let project: string;
let keelHome: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-trust-")));
  project = join(root, "project");
  keelHome = join(root, "keel-home");
  mkdirSync(join(project, ".keel", "skills", "deploy"), { recursive: true });
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, ".keel", "config.json"), '{"model":"a/b"}');
  writeFileSync(join(project, ".keel", "skills", "deploy", "SKILL.md"), "# deploy\n");
  writeFileSync(join(project, ".mcp.json"), '{"mcpServers":{}}');
  writeFileSync(join(project, "AGENTS.md"), "Be careful.\n");
  writeFileSync(join(project, "src", "index.ts"), "export {};\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const hash = () => hashProject(project)._unsafeUnwrap();
const status = () => trustStatus(project, { home: keelHome })._unsafeUnwrap();

describe("the legacy hashProject", () => {
  it.each([
    [".keel/config.json", join(".keel", "config.json")],
    [".mcp.json", ".mcp.json"],
    ["AGENTS.md", "AGENTS.md"],
    ["a skill file", join(".keel", "skills", "deploy", "SKILL.md")],
  ])("changes when %s changes", (_label, rel) => {
    const before = hash();
    writeFileSync(join(project, rel), "changed");
    expect(hash()).not.toBe(before);
  });

  it("changes when CLAUDE.md or a new .keel file appears", () => {
    const before = hash();
    writeFileSync(join(project, "CLAUDE.md"), "x");
    const withClaude = hash();
    expect(withClaude).not.toBe(before);
    writeFileSync(join(project, ".keel", "hooks.sh"), "rm -rf /");
    expect(hash()).not.toBe(withClaude);
  });

  it("stays when an unrelated file or session data changes", () => {
    const before = hash();
    writeFileSync(join(project, "src", "index.ts"), "export const x = 1;\n");
    writeFileSync(join(project, "README.md"), "readme");
    mkdirSync(join(project, ".keel", "sessions"));
    writeFileSync(join(project, ".keel", "sessions", "s1.jsonl"), "{}\n");
    writeFileSync(join(project, ".keel", ".gitignore"), "config.local.json\n");
    expect(hash()).toBe(before);
  });

  it("follows a symlink out of the project, so a change where it leads counts", () => {
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "ext.js"), "one");
    symlinkSync(outside, join(project, ".keel", "extensions"));
    const before = hash();
    writeFileSync(join(outside, "ext.js"), "two");
    expect(hash()).not.toBe(before);
    const two = hash();
    rmSync(join(project, ".keel", "extensions"));
    mkdirSync(join(root, "elsewhere"));
    writeFileSync(join(root, "elsewhere", "ext.js"), "two");
    symlinkSync(join(root, "elsewhere"), join(project, ".keel", "extensions"));
    // Same content, another place: the link's target is part of what was approved.
    expect(hash()).not.toBe(two);
  });

  it("follows a symlink that stays inside the project, so its content counts", () => {
    mkdirSync(join(project, "tools"));
    writeFileSync(join(project, "tools", "ext.js"), "one");
    symlinkSync(join(project, "tools"), join(project, ".keel", "extensions"));
    const before = hash();
    writeFileSync(join(project, "tools", "ext.js"), "two");
    expect(hash()).not.toBe(before);
  });

  it("returns an error value for a tree past the limits", () => {
    for (let i = 0; i < 20; i++) writeFileSync(join(project, ".keel", `f${i}`), "x");
    const result = hashProject(project, { maxFiles: 10, maxFileBytes: 1024, maxTotalBytes: 4096 });
    expect(result._unsafeUnwrapErr().type).toBe("project_too_large");
    writeFileSync(join(project, ".keel", "big"), "x".repeat(2048));
    expect(
      hashProject(project, { maxFiles: 100, maxFileBytes: 1024, maxTotalBytes: 1 << 20 })._unsafeUnwrapErr()
        .type,
    ).toBe("project_too_large");
  });
});

describe("trust store", () => {
  it("untrusted → trusted → changed → trusted again → untrusted", () => {
    expect(status()).toBe("untrusted");
    const entry = trustProject(project, {
      home: keelHome,
      now: () => new Date("2026-01-02T03:04:05Z"),
    })._unsafeUnwrap();
    expect(entry.trustedAt).toBe("2026-01-02T03:04:05.000Z");
    expect(status()).toBe("trusted");
    writeFileSync(join(project, ".keel", "config.json"), '{"hooks":{"runEnd":[{"command":"./x.sh"}]}}');
    expect(status()).toBe("changed");
    trustProject(project, { home: keelHome });
    expect(status()).toBe("trusted");
    untrustProject(project, { home: keelHome });
    expect(status()).toBe("untrusted");
  });

  it("stores realpath keys in $KEEL_HOME/trust.json, with the surface trusted", () => {
    const previous = process.env.KEEL_HOME;
    process.env.KEEL_HOME = keelHome;
    try {
      symlinkSync(project, join(root, "alias"));
      trustProject(join(root, "alias"))._unsafeUnwrap();
      const file = JSON.parse(readFileSync(join(keelHome, "trust.json"), "utf8"));
      expect(Object.keys(file.projects)).toEqual([project]);
      expect(file.projects[project].hash).toBe("");
      expect(file.projects[project].surface).toEqual({});
      expect(trustStatus(project)._unsafeUnwrap()).toBe("trusted");
    } finally {
      if (previous === undefined) delete process.env.KEEL_HOME;
      else process.env.KEEL_HOME = previous;
    }
  });

  it("a damaged trust file trusts nothing and is reported", () => {
    mkdirSync(keelHome, { recursive: true });
    writeFileSync(join(keelHome, "trust.json"), "[1,2]");
    expect(trustStatus(project, { home: keelHome })._unsafeUnwrapErr().type).toBe("trust_store_invalid");
  });
});

describe("findProjectRoot", () => {
  it("finds the nearest ancestor with .git or .keel, else cwd", () => {
    mkdirSync(join(project, "src", "deep"), { recursive: true });
    expect(findProjectRoot(join(project, "src", "deep"), keelHome)).toBe(project);
    const bare = join(root, "bare", "x");
    mkdirSync(bare, { recursive: true });
    expect(findProjectRoot(bare, keelHome)).toBe(bare);
  });

  it("does not take the Keel home's parent for a project", () => {
    const home = join(root, "user");
    mkdirSync(join(home, ".keel"), { recursive: true });
    mkdirSync(join(home, "scratch"));
    expect(findProjectRoot(join(home, "scratch"), join(home, ".keel"))).toBe(join(home, "scratch"));
  });
});
