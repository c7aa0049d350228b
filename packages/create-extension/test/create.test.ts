// `npm create @keel/extension`: the package it writes takes the SDK as a peer in the range of the
// SDK installed with it, type-checks and passes its own test against this SDK, and the bin refuses
// bad names and existing folders. (The registry check installs, publishes and loads it for real.)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExtension, sdkVersion, TOOL_VERSIONS } from "../src/index.js";

const repo = resolve(import.meta.dirname, "../../..");
const bin = resolve(import.meta.dirname, "../dist/bin.js");
let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), "keel-create-"));
});
afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

const create = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });

describe("npm create @keel/extension", () => {
  it("writes a package that takes the SDK as a peer, in the range of the SDK it came with", () => {
    const run = create("@acme/git-notes");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const sdk = sdkVersion();
    expect(run.stdout).toContain(`Created git-notes (@acme/git-notes, for @keel/extension-sdk ^${sdk})`);
    expect(run.stdout).toContain("keel install ./acme-git-notes-0.1.0.tgz");

    const dir = join(cwd, "git-notes");
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe("@acme/git-notes");
    expect(manifest.keywords).toEqual(["keel-extension"]);
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({ "@keel/extension-sdk": `^${sdk}` });
    expect(manifest.devDependencies["@keel/extension-sdk"]).toBe(`^${sdk}`);
    expect(manifest.scripts.prepack).toBe("npm run build");
    expect(manifest.files).toEqual(["dist"]);
    expect(readFileSync(join(dir, "src/index.ts"), "utf8")).toContain('id: "git-notes"');
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("keel install @acme/git-notes");
  });

  it("starts the package on the tool versions this repository builds and tests with", () => {
    const root = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    expect(TOOL_VERSIONS.typescript.replace(/^\^/, "")).toBe(root.devDependencies.typescript);
    expect(TOOL_VERSIONS.vitest.replace(/^\^/, "")).toBe(root.devDependencies.vitest);
  });

  it("writes nothing into an existing folder, and refuses names npm or keel would not take", () => {
    const mine = join(cwd, "taken");
    mkdirSync(mine);
    writeFileSync(join(mine, "keep.txt"), "mine");
    const exists = create("taken");
    expect(exists.status).toBe(1);
    expect(exists.stderr).toContain("already exists; nothing was written");
    expect(readFileSync(join(mine, "keep.txt"), "utf8")).toBe("mine");

    for (const bad of ["Bad_Name", "9lives", "a--b", "../escape", "@scope/", "@a/b/c", "x".repeat(41)]) {
      const r = create(bad);
      expect([bad, r.status]).toEqual([bad, 2]);
      expect(r.stderr).toContain("is not a valid extension package name");
    }
    expect(create().stderr).toContain("missing the extension's package name");
  });

  it("writes a package that type-checks, builds and passes its own test against this SDK", () => {
    const made = createExtension({ pkg: "word-count", cwd, sdkVersion: sdkVersion() });
    if (!made.ok) throw new Error(made.error.message);
    // What `npm install` would give it: the SDK (this build), TypeScript and vitest.
    mkdirSync(join(made.dir, "node_modules/@keel"), { recursive: true });
    symlinkSync(
      join(repo, "packages/extension-sdk"),
      join(made.dir, "node_modules/@keel/extension-sdk"),
      "dir",
    );
    for (const tool of ["typescript", "vitest"])
      symlinkSync(join(repo, "node_modules", tool), join(made.dir, "node_modules", tool), "dir");
    const tsc = spawnSync(
      process.execPath,
      [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      {
        cwd: made.dir,
        encoding: "utf8",
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(readFileSync(join(made.dir, "dist/index.d.ts"), "utf8")).toContain("wordCountExtension");
    const vitest = execFileSync(process.execPath, [join(repo, "node_modules/vitest/vitest.mjs"), "run"], {
      cwd: made.dir,
      encoding: "utf8",
      env: { ...process.env, CI: "1", NO_COLOR: "1" },
    });
    expect(vitest).toMatch(/Tests\s+1 passed/);
    // A tsc and a vitest in child processes: seconds alone, a minute on a loaded machine.
  }, 180_000);
});
