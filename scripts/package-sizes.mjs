// What `npm i <package>` puts on disk, read from an npm install: the package plus every package it
// pulls (dependencies, installed optional dependencies, and peers npm installs — not optional ones),
// resolved the way Node resolves them from each package's folder, each counted once.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

/** The folder `name` resolves to from `from`, walking up node_modules like Node does. */
function resolvePackage(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Bytes of a package's own files (its nested node_modules are other packages, counted if reached).
 * A file hardlinked twice (esbuild links its platform binary into its own bin/) counts once.
 */
function ownBytes(dir, inodes, top = true) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (top && entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += ownBytes(path, inodes, false);
    else if (entry.isFile()) {
      const stat = lstatSync(path);
      const inode = `${stat.dev}:${stat.ino}`;
      if (stat.nlink > 1 && inodes.has(inode)) continue;
      inodes.add(inode);
      total += stat.size;
    }
  }
  return total;
}

/**
 * For `name` installed under `project`: every package its install brings (name → {dir, bytes}).
 * Optional peers are left out even when another package installed them: npm would not.
 */
export function installClosure(project, name) {
  const seen = new Map();
  const inodes = new Set();
  const visit = (from, dep, optional) => {
    const dir = resolvePackage(from, dep);
    if (!dir) {
      if (optional) return;
      throw new Error(`${name}: dependency ${dep} is not installed (looked from ${from})`);
    }
    if ([...seen.values()].some((p) => p.dir === dir)) return;
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    seen.set(`${manifest.name}@${manifest.version}`, { dir, bytes: ownBytes(dir, inodes) });
    const peersMeta = manifest.peerDependenciesMeta ?? {};
    for (const d of Object.keys(manifest.dependencies ?? {})) visit(dir, d, false);
    for (const d of Object.keys(manifest.optionalDependencies ?? {})) visit(dir, d, true);
    for (const d of Object.keys(manifest.peerDependencies ?? {}))
      if (!peersMeta[d]?.optional) visit(dir, d, false);
  };
  visit(project, name, false);
  return seen;
}

/**
 * Packages npm installs that nothing loads, named so a budget is not spent on them: neverthrow 8
 * declares rollup's native binary as an optional dependency (supermacro/neverthrow#602); its
 * code requires nothing. `npm i --omit=optional` leaves it out.
 */
export const STRAY = new Set(["@rollup/rollup-linux-x64-gnu"]);

export const megabytes = (bytes) => (bytes / 1e6).toFixed(1);
