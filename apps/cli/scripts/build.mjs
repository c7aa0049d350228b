// Builds dist/: esbuild bundles the bin (workspace packages and their dependencies inlined, so
// startup reads a few files instead of hundreds); tsc emits the .d.ts of the public API.
// The CLI's own third-party dependencies stay external: they need their files at run time
// (tree-sitter's wasm, tsx's loader) or are only loaded by the TUI (ink, react).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// neverthrow has no exports map, so Node would load its CommonJS build through the CJS lexer on
// every start; bundled, esbuild takes its ESM build instead.
const INLINE = new Set(["neverthrow"]);
const external = Object.keys(manifest.dependencies ?? {})
  .filter((name) => !name.startsWith("@keel/") && !INLINE.has(name))
  .flatMap((name) => [name, `${name}/*`]);

// --bundle-only (the test setup): no clean and no declarations, so a concurrent reader of dist/
// never sees it empty.
const bundleOnly = process.argv.includes("--bundle-only");
const entryPoints = { bin: "src/bin.ts", index: "src/index.ts" };
// The TUI is its own entry, reached from bin only through a runtime-computed import.
for (const candidate of ["src/tui/index.ts", "src/tui/index.tsx"])
  if (existsSync(join(root, candidate))) entryPoints["tui/index"] = candidate;

if (!bundleOnly) rmSync(join(root, "dist"), { recursive: true, force: true });
const options = {
  absWorkingDir: root,
  entryPoints,
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  chunkNames: "chunk-[hash]",
  sourcemap: true,
  metafile: true,
  jsx: "automatic",
  // Prefer ESM builds: UMD builds (jsonc-parser) hide their requires from the bundler.
  mainFields: ["module", "main"],
  logLevel: "warning",
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: 'import { createRequire as __keelCreateRequire } from "node:module"; const require = __keelCreateRequire(import.meta.url);',
  },
};
let result;
try {
  result = await build(options);
} catch (e) {
  // The TUI is built in parallel by another hand; while it does not compile, the test setup
  // still needs the print-mode bin. A full build stays strict.
  const tuiOnly = e.errors?.length > 0 && e.errors.every((x) => x.location?.file.startsWith("src/tui/"));
  if (!bundleOnly || !tuiOnly || !entryPoints["tui/index"]) throw e;
  console.warn("keel build: src/tui does not compile; bundling without the TUI entry (test setup only).");
  delete entryPoints["tui/index"];
  result = await build({ ...options, logLevel: "silent" });
}
// Tests read the module graph from here (print mode must not reach the TUI).
writeFileSync(join(root, "dist/meta.json"), JSON.stringify(result.metafile));
if (bundleOnly) {
  // Chunks of earlier builds that nothing references any more.
  const current = new Set(Object.keys(result.metafile.outputs).map((p) => p.replace(/^dist\//, "")));
  for (const name of readdirSync(join(root, "dist")))
    if (/^chunk-.*\.js(\.map)?$/.test(name) && !current.has(name)) rmSync(join(root, "dist", name));
}

// Declarations for the public API only (index.ts and what it references).
if (!bundleOnly)
  execFileSync(
    process.execPath,
    [
      createRequire(import.meta.url).resolve("typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--emitDeclarationOnly",
    ],
    { cwd: root, stdio: "inherit" },
  );
