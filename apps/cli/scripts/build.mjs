// Builds dist/ with esbuild, workspace packages and their dependencies inlined so a start reads a
// few files instead of hundreds; tsc emits the .d.ts of the public API.
// - dist/bin.cjs: the `keel` bin: argument parsing, --help, --version, and the code-cache loader.
// - dist/keel.cjs: the core (print mode, composition, kernel), one CommonJS file so the bin can
//   compile it through V8's code cache (src/code-cache.ts); Node 20 caches no ESM compiles.
// - dist/tui/index.js: the TUI, ESM (ink and react are ESM only), imported only by interactive
//   mode; it gets the kernel from the core instead of bundling a second copy.
// - dist/index.js: the package's public API for other hosts, ESM.
// The CLI's own third-party dependencies stay external: they need their files at run time
// (tree-sitter's wasm, tsx's loader) or are only loaded by the TUI (ink, react).
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
if (!bundleOnly) rmSync(join(root, "dist"), { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  external,
  sourcemap: true,
  metafile: true,
  jsx: "automatic",
  // Prefer ESM builds: UMD builds (jsonc-parser) hide their requires from the bundler.
  mainFields: ["module", "main"],
  logLevel: "warning",
};

const esm = await build({
  ...common,
  entryPoints: { index: "src/index.ts", "tui/index": "src/tui/index.ts" },
  splitting: true,
  format: "esm",
  chunkNames: "chunk-[hash]",
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: 'import { createRequire as __keelCreateRequire } from "node:module"; const require = __keelCreateRequire(import.meta.url);',
  },
});

// import() must not be inside keel.cjs (see src/code-cache.ts): every esm-import module — the
// CLI's and the kernel's — becomes a require of dist/esm-import.cjs, compiled by Node itself.
const esmImportOutside = {
  name: "esm-import-outside",
  setup(b) {
    b.onResolve({ filter: /(^|\/)esm-import\.js$/ }, (args) =>
      args.kind === "entry-point" ? undefined : { path: "./esm-import.cjs", external: true },
    );
  },
};

const cjs = await build({
  ...common,
  entryPoints: { bin: "src/bin.ts", keel: "src/main.ts", "esm-import": "src/esm-import.ts" },
  plugins: [esmImportOutside],
  format: "cjs",
  minifyWhitespace: true,
  outExtension: { ".js": ".cjs" },
  // The sources are ESM; their import.meta.url (package files, the TUI entry, extension loading)
  // is the bundle file's own URL.
  define: { "import.meta.url": "__keelModuleUrl" },
  banner: { js: '"use strict"; const __keelModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
chmodSync(join(root, "dist/bin.cjs"), 0o755);
const core = readFileSync(join(root, "dist/keel.cjs"), "utf8");
// Node reads the core on every start; pure ASCII makes that a one-byte string instead of a
// UTF-8 decode into a two-byte one. esbuild escapes non-ASCII in code and minifying drops the
// comments that carried some (em dashes in SDK doc comments); fail if that ever stops holding.
if (/[^\x00-\x7f]/.test(core))
  throw new Error("dist/keel.cjs is not pure ASCII; strip or escape what esbuild left in it");
// A dynamic import left in the core would fail once it runs from the code cache; fail here.
const leftover = core.match(/(^|[^\w$.`'"])import\(/m);
if (leftover) throw new Error("dist/keel.cjs contains import(); route it through an esm-import module");

// Tests read the module graph from here (print mode must not reach the TUI, the TUI no kernel).
const metafile = {
  inputs: { ...esm.metafile.inputs, ...cjs.metafile.inputs },
  outputs: { ...esm.metafile.outputs, ...cjs.metafile.outputs },
};
writeFileSync(join(root, "dist/meta.json"), JSON.stringify(metafile));
if (bundleOnly) {
  // Chunks of earlier builds that nothing references any more.
  const current = new Set(Object.keys(metafile.outputs).map((p) => p.replace(/^dist\//, "")));
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
