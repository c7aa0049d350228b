// Run after tsc in a package whose code uses @keel/ai for types only (extension-sdk, session):
// ships @keel/ai's message and model types inside the package's declarations, so installing it
// type-checks without @keel/ai and its provider SDKs. The types stay written once, in
// packages/ai/src/types.ts; this copies its emitted .d.ts and points the imports at the copy.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const dist = join(root, "dist");
const aiRoot = dirname(createRequire(join(root, "package.json")).resolve("@keel/ai/package.json"));
const VENDORED = "ai-types.d.ts";

const source = readFileSync(join(aiRoot, "dist/types.d.ts"), "utf8");
// The copy must stand alone: it may import only what this package depends on.
const imports = [...source.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
const missing = imports.filter((s) => !Object.hasOwn(manifest.dependencies ?? {}, s));
if (missing.length > 0)
  throw new Error(`@keel/ai's types import ${missing.join(", ")}, which ${manifest.name} does not depend on`);
writeFileSync(
  join(dist, VENDORED),
  `// Copied at build time from @keel/ai's types (packages/ai/src/types.ts); do not edit.\n${source.replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n")}`,
);

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
for (const file of files(dist)) {
  const text = readFileSync(file, "utf8");
  if (!text.includes('"@keel/ai"')) continue;
  // Only declarations may name @keel/ai: a run-time import would need the package installed.
  if (!file.endsWith(".d.ts")) throw new Error(`${relative(root, file)} imports @keel/ai at run time`);
  let target = relative(dirname(file), join(dist, VENDORED.replace(/\.d\.ts$/, ".js")));
  if (!target.startsWith(".")) target = `./${target}`;
  writeFileSync(file, text.replaceAll('"@keel/ai"', JSON.stringify(target)));
}
