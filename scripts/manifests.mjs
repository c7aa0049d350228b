// What a publishable package.json must say, checked over the workspace: what pnpm publishes from
// it installs from a registry (Keel packages named by ranges pnpm rewrites, extensions taking the
// SDK from their host as a peer), and what npm shows and provenance needs is there.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadedByHost } from "./workspace.mjs";

export const SDK = "@keel/extension-sdk";
/** The kernel's packages: an extension reaches them only through the SDK (DESIGN §1). */
const KERNEL = ["@keel/coding-agent", "@keel/agent", "@keel/ai", "@keel/session"];
const RUNTIME = ["dependencies", "optionalDependencies", "peerDependencies"];
/** The `workspace:` forms pnpm publishes as a range of the package's current version. */
const PUBLISHABLE = /^workspace:[\^~*]$/;

/**
 * Problems with the workspace's manifests, one sentence each (none: publishable). `packages` is
 * scripts/workspace.mjs's list, `rootDir` the repository (its package.json and LICENSE).
 */
export function manifestProblems(packages, rootDir) {
  const problems = [];
  const rootManifest = JSON.parse(readFileSync(join(rootDir, "package.json"), "utf8"));
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const license = (dir) =>
    existsSync(join(dir, "LICENSE")) ? readFileSync(join(dir, "LICENSE"), "utf8") : undefined;
  const rootLicense = license(rootDir);
  if (rootLicense === undefined) problems.push("the repository has no LICENSE file");
  for (const { rel, dir, manifest: m } of packages) {
    if (m.private) continue;
    const say = (text) => problems.push(`${m.name} (${rel}): ${text}`);
    for (const field of ["name", "version", "description", "license", "types", "exports", "files"])
      if (m[field] === undefined) say(`no "${field}"`);
    if (m.engines?.node !== rootManifest.engines?.node)
      say(
        `engines.node is ${JSON.stringify(m.engines?.node)}, not the repository's ${rootManifest.engines?.node}`,
      );
    if (m.publishConfig?.access !== "public") say('publishConfig.access is not "public" (a scoped package)');
    if (m.repository?.url !== rootManifest.repository?.url || m.repository?.directory !== rel)
      say(
        `repository must be { url: ${rootManifest.repository?.url}, directory: ${rel} } (npm provenance checks it)`,
      );
    if (!(m.files ?? []).includes("dist")) say('"files" does not ship dist');
    const text = license(dir);
    if (text === undefined) say("no LICENSE file (npm ships it; the MIT licence asks for it)");
    else if (text !== rootLicense) say("LICENSE differs from the repository's");
    for (const [key, entry] of Object.entries(m.exports ?? {}))
      if (typeof entry === "object" && (!entry.types || !entry.default))
        say(
          `exports["${key}"] needs "types" and "default" (a require() of it on Node 22.12+ uses "default")`,
        );

    for (const section of RUNTIME)
      for (const [dep, range] of Object.entries(m[section] ?? {})) {
        const target = byName.get(dep);
        if (/^(file|link|portal):/.test(range))
          say(`${section}.${dep} is ${range}, which a registry cannot serve`);
        if (!target) {
          if (range.startsWith("workspace:"))
            say(`${section}.${dep} is ${range} but no workspace package has that name`);
          continue;
        }
        if (!PUBLISHABLE.test(range))
          say(
            `${section}.${dep} is ${JSON.stringify(range)}: name a workspace package as workspace:^ (pnpm publishes ^version)`,
          );
        if (target.manifest.private) say(`${section}.${dep} is private and never published`);
      }

    const inExtensionsFolder = rel.split("/").slice(0, -1).join("/") === "packages/extensions";
    if (inExtensionsFolder && !loadedByHost(m))
      say('is in packages/extensions but lacks the "keel-extension" (or "keel-connector") keyword');
    if (!loadedByHost(m)) continue;
    for (const section of ["dependencies", "optionalDependencies"])
      if (m[section]?.[SDK])
        say(`has ${SDK} in ${section}: an extension takes the SDK from its host, as a peer dependency`);
    if (!m.peerDependencies?.[SDK]) say(`does not name ${SDK} in peerDependencies`);
    if (m.peerDependenciesMeta?.[SDK]?.optional)
      say(`${SDK} is an optional peer; the extension cannot load without it`);
    if (!m.devDependencies?.[SDK])
      say(`${SDK} is not in devDependencies, so its own build and tests have no copy`);
    for (const section of RUNTIME)
      for (const dep of KERNEL)
        if (m[section]?.[dep]) say(`depends on the kernel package ${dep} (${section}); grow the SDK instead`);
  }
  return problems;
}
