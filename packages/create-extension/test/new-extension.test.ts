// `pnpm new-extension`: scaffolds into a throwaway root (`--root`) laid out like this repo, then
// checks the files, the refusals, that the manifest is publishable (the SDK a peer), and that the
// generated package type-checks and its test passes. Its source and test are this package's.
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../..");
const script = join(repo, "scripts/new-extension.mjs");
let root: string;

function scaffold(...args: string[]) {
  return spawnSync(process.execPath, [script, ...args, "--root", root], { encoding: "utf8" });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "keel-scaffold-"));
  copyFileSync(join(repo, "tsconfig.base.json"), join(root, "tsconfig.base.json"));
  copyFileSync(join(repo, "vitest.shared.ts"), join(root, "vitest.shared.ts"));
  for (const file of ["package.json", "LICENSE", "pnpm-workspace.yaml"])
    copyFileSync(join(repo, file), join(root, file));
  mkdirSync(join(root, "scripts"));
  for (const file of ["workspace.mjs", "manifests.mjs"])
    copyFileSync(join(repo, "scripts", file), join(root, "scripts", file));
  // What `pnpm install` would give the new package: the root tools, the SDK beside it and the
  // protocol its declarations name.
  symlinkSync(join(repo, "node_modules"), join(root, "node_modules"), "dir");
  mkdirSync(join(root, "packages"));
  for (const name of ["extension-sdk", "protocol"])
    symlinkSync(join(repo, "packages", name), join(root, "packages", name), "dir");
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("new-extension", () => {
  it("creates the package, its source, test, README and changeset", async () => {
    const run = scaffold("git-notes");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Created packages/extensions/git-notes (@keel/ext-git-notes)");
    expect(run.stdout).toContain("pnpm install");

    const dir = join(root, "packages/extensions/git-notes");
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe("@keel/ext-git-notes");
    expect(manifest.dependencies).toEqual({});
    expect(manifest.peerDependencies).toEqual({ "@keel/extension-sdk": "workspace:^" });
    expect(manifest.devDependencies).toEqual({
      "@keel/extension-sdk": "workspace:^",
      "@keel/testing": "workspace:^",
    });
    expect(manifest.keywords).toContain("keel-extension");
    expect(manifest.exports["."]).toEqual({
      types: "./dist/index.d.ts",
      import: "./dist/index.js",
      default: "./dist/index.js",
    });
    // As publishable as the packages beside it.
    const { manifestProblems } = await import(pathToFileURL(join(root, "scripts/manifests.mjs")).href);
    const { workspacePackages } = await import(pathToFileURL(join(root, "scripts/workspace.mjs")).href);
    expect(manifestProblems(workspacePackages(root), root)).toEqual([]);

    const source = readFileSync(join(dir, "src/index.ts"), "utf8");
    expect(source).toContain('id: "git-notes"');
    expect(source).toContain("export default gitNotesExtension;");
    expect(readFileSync(join(dir, "test/git-notes.test.ts"), "utf8")).toContain("GitNotesNote");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("# @keel/ext-git-notes");
    expect(readFileSync(join(root, ".changeset/git-notes-initial.md"), "utf8")).toBe(
      '---\n"@keel/ext-git-notes": minor\n---\n\nNew package: @keel/ext-git-notes.\n',
    );
  });

  it("refuses to overwrite an existing folder and leaves it untouched", () => {
    const file = join(root, "packages/extensions/git-notes/src/index.ts");
    writeFileSync(file, "// mine\n");
    const run = scaffold("git-notes");
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("packages/extensions/git-notes already exists");
    expect(readFileSync(file, "utf8")).toBe("// mine\n");
  });

  it.each([["Bad_Name"], ["9lives"], ["trailing-"], ["a--b"], ["../escape"], ["x".repeat(41)]])(
    "rejects the name %s as usage error",
    (name) => {
      const run = scaffold(name);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("not a valid extension name");
    },
  );

  it("rejects a missing name", () => {
    const run = scaffold();
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("missing the extension name");
  });

  it("generates a package that type-checks against the SDK and whose test passes", () => {
    expect(scaffold("word-count").status).toBe(0);
    const dir = join(root, "packages/extensions/word-count");
    // The SDK source, not its dist, so a stale build cannot hide a drift.
    writeFileSync(
      join(dir, "tsconfig.check.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: {
          noEmit: true,
          paths: {
            "@keel/extension-sdk": ["../../extension-sdk/src/index.ts"],
            "@keel/extension-sdk/testing": ["../../extension-sdk/src/testing.ts"],
          },
        },
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.check.json"],
      { cwd: dir, encoding: "utf8" },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);

    const vitest = execFileSync(
      process.execPath,
      [join(repo, "node_modules/vitest/vitest.mjs"), "run", "--reporter=verbose"],
      { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1" } },
    );
    expect(vitest).toContain("keeps each note in session state");
    expect(vitest).toMatch(/Tests\s+1 passed/);
    // A tsc and a vitest in child processes: seconds alone, a minute on a loaded machine.
  }, 180_000);
});
