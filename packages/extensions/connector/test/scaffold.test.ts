// `pnpm new-extension --connector`: scaffolds a connector package into a throwaway root laid
// out like this repo, then checks its files, the name rule, and that the generated package
// type-checks against this SDK's source and its own test (against a local fake) passes.
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../../..");
const script = join(repo, "scripts/new-extension.mjs");
let root: string;

function scaffold(...args: string[]) {
  return spawnSync(process.execPath, [script, ...args, "--root", root], { encoding: "utf8" });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "keel-connector-scaffold-"));
  copyFileSync(join(repo, "tsconfig.base.json"), join(root, "tsconfig.base.json"));
  copyFileSync(join(repo, "vitest.shared.ts"), join(root, "vitest.shared.ts"));
  for (const file of ["package.json", "LICENSE", "pnpm-workspace.yaml"])
    copyFileSync(join(repo, file), join(root, file));
  mkdirSync(join(root, "scripts"));
  copyFileSync(join(repo, "scripts/workspace.mjs"), join(root, "scripts/workspace.mjs"));
  // What `pnpm install` would give the new package: the root tools, the SDK and the connector SDK.
  symlinkSync(join(repo, "node_modules"), join(root, "node_modules"), "dir");
  mkdirSync(join(root, "packages/extensions"), { recursive: true });
  symlinkSync(join(repo, "packages/extension-sdk"), join(root, "packages/extension-sdk"), "dir");
  symlinkSync(
    join(repo, "packages/extensions/connector"),
    join(root, "packages/extensions/connector"),
    "dir",
  );
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("new-extension --connector", () => {
  it("creates a connector package, its test, README and changeset", () => {
    const run = scaffold("jira", "--connector");
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Created packages/extensions/connector-jira (@keel/connector-jira)");
    expect(run.stdout).toContain("extensions.connector.config.modules");

    const dir = join(root, "packages/extensions/connector-jira");
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe("@keel/connector-jira");
    // The host that loads a connector provides both SDKs.
    expect(manifest.dependencies).toEqual({});
    expect(manifest.peerDependencies).toEqual({
      "@keel/ext-connector": "workspace:^",
      "@keel/extension-sdk": "workspace:^",
    });
    expect(manifest.keywords).toContain("keel-connector");
    const source = readFileSync(join(dir, "src/index.ts"), "utf8");
    expect(source).toContain('id: "jira"');
    expect(source).toContain('effect: "create"');
    expect(source).toContain("export default jiraConnector;");
    expect(source).toContain('from "@keel/ext-connector/sdk"');
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("`jira__create_item`");
    expect(readFileSync(join(root, ".changeset/connector-jira-initial.md"), "utf8")).toBe(
      '---\n"@keel/connector-jira": minor\n---\n\nNew package: @keel/connector-jira.\n',
    );
  });

  it.each([["git-hub"], ["Jira"], ["9x"], ["a".repeat(33)]])("rejects the connector name %s", (name) => {
    const run = scaffold(name, "--connector");
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("not a valid connector name");
  });

  it("refuses to overwrite an existing connector package", () => {
    const run = scaffold("jira", "--connector");
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("packages/extensions/connector-jira already exists");
  });

  it("generates a package that type-checks against the connector SDK and whose test passes", () => {
    expect(scaffold("acme", "--connector").status).toBe(0);
    const dir = join(root, "packages/extensions/connector-acme");
    writeFileSync(
      join(dir, "tsconfig.check.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: {
          noEmit: true,
          paths: {
            "@keel/extension-sdk": ["../../extension-sdk/src/index.ts"],
            // The SDK's source, so a stale build cannot hide a drift; the generated package
            // imports the SDK entry alone, which reaches no Octokit or Linear types.
            "@keel/ext-connector/sdk": ["../connector/src/sdk.ts"],
            "@keel/ext-connector/testing": ["../connector/src/testing.ts"],
          },
        },
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.check.json"],
      {
        cwd: dir,
        encoding: "utf8",
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);

    const vitest = execFileSync(
      process.execPath,
      [join(repo, "node_modules/vitest/vitest.mjs"), "run", "--reporter=verbose"],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, CI: "1", NO_COLOR: "1" },
      },
    );
    expect(vitest).toContain("creates an item with the title it was given");
    expect(vitest).toMatch(/Tests\s+3 passed/);
  }, 120_000);
});
