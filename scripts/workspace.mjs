// The workspace's packages as pnpm finds them (pnpm-workspace.yaml's `packages` globs), so every
// script and test that walks packages sees a new one without a list to edit.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "..");

/** The `packages:` globs of pnpm-workspace.yaml: `dir`, `dir/*`, and `!dir` exclusions. */
export function workspaceGlobs(base = root) {
  const yaml = readFileSync(join(base, "pnpm-workspace.yaml"), "utf8");
  const block = /^packages:\s*\n((?:[ \t]+-.*\n?)+)/m.exec(yaml);
  if (!block) throw new Error("pnpm-workspace.yaml has no packages: list");
  const globs = block[1]
    .split("\n")
    .map((l) => l.replace(/^\s*-\s*/, "").replace(/^["']|["']$/g, ""))
    .filter(Boolean);
  for (const g of globs)
    if (/\*\*|[?[{]|\*./.test(g.replace(/\/\*$/, "")))
      throw new Error(`pnpm-workspace.yaml: "${g}" is not a glob scripts/workspace.mjs reads (dir or dir/*)`);
  return globs;
}

/**
 * Every workspace package under `base` (the root package excluded), in a stable order:
 * `{ dir, rel, manifest }` with `rel` the folder relative to the root, e.g. "packages/ai".
 */
export function workspacePackages(base = root) {
  const globs = workspaceGlobs(base);
  const excluded = new Set(globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1)));
  const rels = globs
    .filter((g) => !g.startsWith("!"))
    .flatMap((g) => {
      if (!g.endsWith("/*")) return [g];
      const parent = g.slice(0, -2);
      if (!existsSync(join(base, parent))) return [];
      return readdirSync(join(base, parent)).map((name) => `${parent}/${name}`);
    });
  return [...new Set(rels)]
    .filter((rel) => !excluded.has(rel) && existsSync(join(base, rel, "package.json")))
    .sort()
    .map((rel) => ({
      rel,
      dir: join(base, rel),
      manifest: JSON.parse(readFileSync(join(base, rel, "package.json"), "utf8")),
    }));
}

/** The packages that publish (not `private`). */
export const publicPackages = (base = root) => workspacePackages(base).filter((p) => !p.manifest.private);

/**
 * Whether a package is a Keel extension: its manifest says so with the `keel-extension` keyword
 * (what the scaffolds write, and what `npm search keywords:keel-extension` finds).
 */
export const isExtension = (manifest) => (manifest.keywords ?? []).includes("keel-extension");

/** Extensions and connectors (`keel-connector`): code a Keel host loads, against its own SDK. */
export const loadedByHost = (manifest) =>
  isExtension(manifest) || (manifest.keywords ?? []).includes("keel-connector");
