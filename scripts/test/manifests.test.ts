// Every public package.json publishes as something a registry can install: Keel packages named by
// ranges pnpm rewrites, extensions taking the SDK from the host as a peer, the fields npm shows and
// provenance checks. Then one real `pnpm pack` shows what a `workspace:` range becomes.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { manifestProblems, SDK } from "../manifests.mjs";
import { publicPackages, root, workspacePackages } from "../workspace.mjs";

// biome-ignore lint/suspicious/noExplicitAny: a package.json, edited freely to break it.
type Manifest = Record<string, any>;
type Pkg = { rel: string; dir: string; manifest: Manifest };
const packages = workspacePackages() as Pkg[];
const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the workspace's manifests with one package's changed, checked like the real ones. */
function problemsWith(name: string, change: (m: Manifest) => void): string[] {
  const copy = mkdtempSync(join(tmpdir(), "keel-manifests-"));
  temp.push(copy);
  for (const file of ["package.json", "LICENSE", "pnpm-workspace.yaml"])
    cpSync(join(root, file), join(copy, file));
  for (const p of packages) {
    mkdirSync(join(copy, p.rel), { recursive: true });
    const manifest = structuredClone(p.manifest);
    if (manifest.name === name) change(manifest);
    writeFileSync(join(copy, p.rel, "package.json"), JSON.stringify(manifest));
    if (!p.manifest.private) cpSync(join(p.dir, "LICENSE"), join(copy, p.rel, "LICENSE"));
  }
  return manifestProblems(workspacePackages(copy), copy);
}

describe("the workspace's manifests", () => {
  it("finds every package from pnpm-workspace.yaml, extensions included", () => {
    const names = (publicPackages() as Pkg[]).map((p) => p.manifest.name);
    expect(names).toContain("@keel/cli");
    expect(names).toContain("@keel/ext-todo");
    expect(names).toContain(SDK);
    expect(names.length).toBeGreaterThanOrEqual(13);
  });

  it("are all publishable", () => {
    expect(manifestProblems(packages, root)).toEqual([]);
  });

  it("refuse a Keel dependency with a range pnpm does not rewrite to the published version", () => {
    expect(problemsWith("@keel/agent", (m) => (m.dependencies["@keel/ai"] = "^0.0.1"))).toEqual([
      '@keel/agent (packages/agent): dependencies.@keel/ai is "^0.0.1": name a workspace package as workspace:^ (pnpm publishes ^version)',
    ]);
    expect(problemsWith("@keel/agent", (m) => (m.dependencies["@keel/ai"] = "file:../ai"))).toContain(
      "@keel/agent (packages/agent): dependencies.@keel/ai is file:../ai, which a registry cannot serve",
    );
    expect(problemsWith("@keel/agent", (m) => (m.dependencies["@keel/scripts"] = "workspace:^"))).toEqual([
      "@keel/agent (packages/agent): dependencies.@keel/scripts is private and never published",
    ]);
  });

  it("refuse an extension that depends on the SDK other than as a peer", () => {
    const regular = problemsWith("@keel/ext-todo", (m) => {
      delete m.peerDependencies[SDK];
      m.dependencies[SDK] = "workspace:^";
    });
    expect(regular).toEqual([
      `@keel/ext-todo (packages/extensions/todo): has ${SDK} in dependencies: an extension takes the SDK from its host, as a peer dependency`,
      `@keel/ext-todo (packages/extensions/todo): does not name ${SDK} in peerDependencies`,
    ]);
    expect(
      problemsWith("@keel/ext-skills", (m) => (m.peerDependenciesMeta = { [SDK]: { optional: true } })),
    ).toEqual([
      `@keel/ext-skills (packages/extensions/skills): ${SDK} is an optional peer; the extension cannot load without it`,
    ]);
    expect(problemsWith("@keel/ext-mcp", (m) => (m.keywords = ["keel"]))).toEqual([
      '@keel/ext-mcp (packages/extensions/mcp): is in packages/extensions but lacks the "keel-extension" (or "keel-connector") keyword',
    ]);
    expect(
      problemsWith("@keel/ext-todo", (m) => (m.dependencies["@keel/coding-agent"] = "workspace:^")),
    ).toEqual([
      "@keel/ext-todo (packages/extensions/todo): depends on the kernel package @keel/coding-agent (dependencies); grow the SDK instead",
    ]);
  });

  it("refuse missing provenance and registry fields", () => {
    expect(problemsWith("@keel/session", (m) => delete m.repository)).toEqual([
      `@keel/session (packages/session): repository must be { url: ${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).repository.url}, directory: packages/session } (npm provenance checks it)`,
    ]);
    expect(problemsWith("@keel/session", (m) => (m.exports["."] = { import: "./dist/index.js" }))).toEqual([
      '@keel/session (packages/session): exports["."] needs "types" and "default" (a require() of it on Node 22.12+ uses "default")',
    ]);
  });

  it("pack with every workspace: range rewritten to the version it names", () => {
    const out = mkdtempSync(join(tmpdir(), "keel-pack-manifest-"));
    temp.push(out);
    const version = (name: string) => packages.find((p) => p.manifest.name === name)!.manifest.version;
    const packed = (rel: string) => {
      const file = execFileSync("pnpm", ["pack", "--pack-destination", out], {
        cwd: join(root, rel),
        encoding: "utf8",
      })
        .trim()
        .split("\n")
        .pop()!;
      execFileSync("tar", ["-xzf", file, "-C", out, "package/package.json"]);
      const text = readFileSync(join(out, "package/package.json"), "utf8");
      expect(text).not.toContain("workspace:");
      return JSON.parse(text);
    };
    const todo = packed("packages/extensions/todo");
    expect(todo.peerDependencies).toEqual({ [SDK]: `^${version(SDK)}` });
    expect(todo.dependencies[SDK]).toBeUndefined();
    // The CLI carries the exact SDK it inlines, for the extensions it installs to share.
    const cli = packed("apps/cli");
    expect(cli.dependencies[SDK]).toBe(version(SDK));
  }, 60_000);
});
