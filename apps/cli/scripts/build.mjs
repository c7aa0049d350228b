// Builds dist/ with esbuild, workspace packages and their dependencies inlined so a start reads a
// few files instead of hundreds, and an install carries only what keel loads; tsc emits the .d.ts
// of the public API.
// - dist/bin.cjs: the `keel` bin: argument parsing, --help, --version, and the code-cache loader.
// - dist/keel.cjs: the core (print mode, composition, kernel), one CommonJS file so the bin can
//   compile it through V8's code cache (src/code-cache.ts), which holds every function a run
//   compiled; Node's own compile cache (module.enableCompileCache) keeps only what V8 compiles
//   eagerly, and a start then compiles the rest again (~25% more instructions, measured).
// - dist/ext-<id>.cjs: each official extension, a CommonJS bundle of its own, read through the
//   code cache like the core when a session activates it (src/bundled-extensions.ts), with the
//   SDK, TypeBox and neverthrow lent by the core (src/shared-modules.ts); the list of extensions
//   is src/official.ts's.
// - dist/acp.cjs: `keel acp`'s protocol front (the ACP SDK, no kernel), cached the same way, so an
//   editor's `initialize` is answered before the core is read.
// - dist/tui/index.js: the TUI with ink and react, ESM (they are ESM only), imported only by
//   interactive mode; it gets the kernel from the core instead of bundling a second copy.
// - dist/node_modules/<name>: the service SDKs extensions require on first use (@tavily/core,
//   @octokit/rest, @linear/sdk), each one bundled file with its dependencies, where Node's
//   resolution from the core finds it; an install carries their JavaScript, not their trees.
// - dist/tree-sitter-bash.wasm: the bash grammar, beside the core that loads it; and
//   dist/node_modules/web-tree-sitter: the parser's ESM module and its WASM runtime, the two files
//   of that package keel loads (without its debug build, sources and maps).
// - dist/print.v1.schema.json: the JSON Schema of print mode's json / stream-json output and
//   stream-json input, written from src/print/schema.ts (exported as @keel/cli/print.v1.schema.json).
// - dist/index.js: the package's public API for other hosts, ESM, over the @keel packages they
//   install themselves (optional peers: the bin needs none of them).
// The CLI's run-time dependencies (package.json `dependencies`) stay external, but for the
// extension SDK (below); TypeScript extensions need none (Node strips their types).
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** CommonJS's function wrapper, as src/code-cache.ts expects it (a test holds the two equal). */
const CJS_WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const CJS_WRAPPER_TAIL = "})";
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const externalOf = (names) => names.flatMap((name) => [name, `${name}/*`]);
// @keel/extension-sdk is a dependency for the extensions keel installs (they resolve the host's
// copy, see keel install); the core still inlines it, so a start reads no more files.
const runtime = Object.keys(manifest.dependencies ?? {}).filter((name) => name !== "@keel/extension-sdk");
const external = externalOf(runtime);
const require = createRequire(import.meta.url);

// --bundle-only (the test setup): no clean and no declarations, so a concurrent reader of dist/
// never sees it empty.
const bundleOnly = process.argv.includes("--bundle-only");
if (!bundleOnly) rmSync(join(root, "dist"), { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node22",
  external,
  // Stack traces map back to the sources (NODE_OPTIONS=--enable-source-maps) without shipping them.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  jsx: "automatic",
  // Prefer ESM builds: UMD builds (jsonc-parser) hide their requires from the bundler.
  mainFields: ["module", "main"],
  logLevel: "warning",
};

// ink loads react-devtools-core only with DEV=true; it is an optional peer keel does not ship.
const tui = await build({
  ...common,
  external: ["react-devtools-core"],
  entryPoints: { "tui/index": "src/tui/index.ts" },
  splitting: true,
  format: "esm",
  chunkNames: "tui/chunk-[hash]",
  minifyWhitespace: true,
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: 'import { createRequire as __keelCreateRequire } from "node:module"; const require = __keelCreateRequire(import.meta.url);',
  },
});

const api = await build({
  ...common,
  external: [...external, ...externalOf(Object.keys(manifest.peerDependencies ?? {}))],
  entryPoints: { index: "src/index.ts" },
  format: "esm",
});

// Third-party code extensions load on demand, each bundled apart from the core so a start does
// not parse it, as a package folder Node's resolution from dist/keel.cjs finds.
const VENDORED = ["@tavily/core", "@octokit/rest", "@linear/sdk"];
const vendored = [];
for (const name of VENDORED) {
  // Not every package exports its package.json; the CLI's own dependency folder has it.
  const pkgDir = realpathSync(join(root, "node_modules", name));
  const { version, license } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const outDir = join(root, "dist/node_modules", name);
  vendored.push(
    await build({
      ...common,
      external: [],
      sourcemap: false,
      stdin: { contents: `export * from ${JSON.stringify(name)};`, resolveDir: root, loader: "js" },
      outfile: join(outDir, "index.cjs"),
      outdir: undefined,
      format: "cjs",
      minifyWhitespace: true,
    }),
  );
  writeFileSync(
    join(outDir, "package.json"),
    `${JSON.stringify({ name, version, license, description: "Bundled by @keel/cli from the package of this name.", main: "index.cjs" }, null, 2)}\n`,
  );
  const licenseFile = readdirSync(pkgDir).find((f) => /^licen[cs]e/i.test(f));
  if (licenseFile) copyFileSync(join(pkgDir, licenseFile), join(outDir, licenseFile));
}
// The MCP extension loads its client (and the MCP SDK under it) on demand, by the specifier
// "@keel/ext-mcp/client": bundled apart the same way, in a package folder of the CLI's own name
// (the core's copy of the extension asks for that name, see mcpClientVendored). Without it an
// installed keel has no @keel/ext-mcp to resolve: it is an optional peer. A folder named
// @keel/ext-mcp would shadow the real package for dist/index.js's users.
const MCP_CLIENT = "@keel/cli-mcp-client";
{
  const outDir = join(root, "dist/node_modules", MCP_CLIENT);
  vendored.push(
    await build({
      ...common,
      external: [],
      sourcemap: false,
      stdin: { contents: 'export * from "@keel/ext-mcp/client";', resolveDir: root, loader: "js" },
      outfile: join(outDir, "client.cjs"),
      outdir: undefined,
      format: "cjs",
      minifyWhitespace: true,
    }),
  );
  const { version, license } = JSON.parse(
    readFileSync(join(realpathSync(join(root, "node_modules/@keel/ext-mcp")), "package.json"), "utf8"),
  );
  writeFileSync(
    join(outDir, "package.json"),
    `${JSON.stringify({ name: MCP_CLIENT, version, license, description: "Bundled by @keel/cli from @keel/ext-mcp/client: the MCP client keel loads on demand.", main: "client.cjs" }, null, 2)}\n`,
  );
}
copyFileSync(
  require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"),
  join(root, "dist/tree-sitter-bash.wasm"),
);
{
  const from = realpathSync(join(root, "node_modules/web-tree-sitter"));
  const { version, license } = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
  const to = join(root, "dist/node_modules/web-tree-sitter");
  mkdirSync(to, { recursive: true });
  // tree-sitter.js finds tree-sitter.wasm beside itself (new URL(…, import.meta.url)).
  for (const file of ["tree-sitter.js", "tree-sitter.wasm", "LICENSE"])
    copyFileSync(join(from, file), join(to, file));
  const exports = { ".": "./tree-sitter.js", "./tree-sitter.wasm": "./tree-sitter.wasm" };
  writeFileSync(
    join(to, "package.json"),
    `${JSON.stringify({ name: "web-tree-sitter", version, license, description: "Copied by @keel/cli: the files of this package keel loads.", type: "module", exports }, null, 2)}\n`,
  );
}

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

// The ACP SDK builds its ~180 zod schemas when it is imported, a third of what `keel acp` runs
// before it can answer `initialize` (measured: ~25 ms of CPU a start). Each becomes a z.lazy, built
// on its first parse; nothing else changes (the SDK parses with them, it never inspects them).
// A generated file of another shape fails the build rather than going out half wrapped.
const acpSchemasLazy = {
  name: "acp-schemas-lazy",
  setup(b) {
    b.onLoad(
      { filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]schema[\\/]zod\.gen\.js$/ },
      (args) => {
        const lines = readFileSync(args.path, "utf8").split("\n");
        const depth = (text) =>
          [...text].reduce((d, c) => d + ("([{".includes(c) ? 1 : ")]}".includes(c) ? -1 : 0), 0);
        const out = [];
        let wrapped = 0;
        for (let i = 0; i < lines.length; i++) {
          const start = /^export const (z\w+) = (.*)$/.exec(lines[i]);
          if (!start) {
            out.push(lines[i]);
            continue;
          }
          let statement = start[2];
          while (!(statement.endsWith(";") && depth(statement) === 0) && i + 1 < lines.length)
            statement += `\n${lines[++i]}`;
          out.push(`export const ${start[1]} = z.lazy(() => ${statement.slice(0, -1)});`);
          wrapped++;
        }
        // Every export a schema, and each one wrapped (a brace in a string would have merged two).
        if (wrapped === 0 || wrapped !== lines.filter((l) => l.startsWith("export ")).length)
          throw new Error(`${args.path}: not the generated schema file the acp-schemas-lazy plugin knows`);
        return { contents: out.join("\n"), loader: "js" };
      },
    );
  },
};

// The core's copy of the MCP extension loads its client from the bundle above.
const mcpClientVendored = {
  name: "mcp-client-vendored",
  setup(b) {
    b.onLoad({ filter: /[\\/]mcp[\\/]dist[\\/](session|cli[\\/]index)\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes('"@keel/ext-mcp/client"'))
        throw new Error(`${args.path} no longer imports "@keel/ext-mcp/client"; update mcpClientVendored`);
      return {
        contents: source.replaceAll('"@keel/ext-mcp/client"', JSON.stringify(MCP_CLIENT)),
        loader: "js",
      };
    });
  },
};

// The official extensions, from src/official.ts (the one list; the bin loads them by id).
const official = [
  ...readFileSync(join(root, "src/official.ts"), "utf8").matchAll(
    /\{ id: "([a-z-]+)", from: "(@keel\/[a-z-]+)", name: "(\w+)" \}/g,
  ),
].map(([, id, from, name]) => ({ id, from, name }));
if (official.length === 0) throw new Error("src/official.ts lists no official extension; update build.mjs");

const cjsCommon = {
  ...common,
  plugins: [esmImportOutside, mcpClientVendored, acpSchemasLazy],
  format: "cjs",
  minifyWhitespace: true,
  outExtension: { ".js": ".cjs" },
  // The sources are ESM; their import.meta.url (package files, the TUI entry, extension loading)
  // is the bundle file's own URL.
  define: { "import.meta.url": "__keelModuleUrl" },
  banner: { js: '"use strict"; const __keelModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
};
// The bundles the bin compiles itself (src/code-cache.ts: the core, the ACP front, the official
// extensions) carry CommonJS's function wrapper, written by esbuild as banner and footer (so the
// source maps count its line): the bin compiles each file's text as read. Wrapped at run time, the
// 2 MB core was copied once more onto the heap (the concatenation, flattened for the compiler).
const compiledByBin = {
  banner: { js: `${CJS_WRAPPER_HEAD}\n${cjsCommon.banner.js}` },
  footer: { js: CJS_WRAPPER_TAIL },
};
// What the core lends them (src/shared-modules.ts): external in their bundles.
const shared = [
  ...readFileSync(join(root, "src/shared-modules.ts"), "utf8").matchAll(
    /^import \* as \w+ from "([^"]+)";$/gm,
  ),
].map(([, name]) => name);
if (shared.length === 0) throw new Error("src/shared-modules.ts lends nothing; update build.mjs");
const extensions = [];
for (const { id, from, name } of official)
  extensions.push(
    await build({
      ...cjsCommon,
      ...compiledByBin,
      external: [...external, ...shared],
      stdin: {
        contents: `export { ${name} as extension } from "${from}";`,
        resolveDir: root,
        loader: "js",
        sourcefile: `ext-${id}.js`,
      },
      outfile: join(root, `dist/ext-${id}.cjs`),
      outdir: undefined,
      outExtension: undefined,
    }),
  );

// Each external an extension bundle requires must be lent by the core or found by Node from dist/.
for (const ext of extensions)
  for (const output of Object.values(ext.metafile.outputs))
    for (const { path, external: isExternal } of output.imports)
      if (
        isExternal &&
        !path.startsWith("node:") &&
        !builtinModules.includes(path) &&
        !shared.includes(path) &&
        ![...runtime, MCP_CLIENT, "./esm-import.cjs"].some((n) => path === n || path.startsWith(`${n}/`))
      )
        throw new Error(`an extension bundle requires ${path}, which neither the core lends nor dist/ holds`);

const front = await build({
  ...cjsCommon,
  entryPoints: {
    bin: "src/bin.ts",
    "esm-import": "src/esm-import.ts",
  },
});
const acpFront = await build({
  ...cjsCommon,
  ...compiledByBin,
  entryPoints: { acp: "src/acp/front.ts" },
});
// The core, where the provider SDKs are: their Headers, Response and FormData without undici
// (src/fetch-globals.ts); injected here only, so the bin and the ACP front stay without @keel/ai.
const cjs = await build({
  ...cjsCommon,
  ...compiledByBin,
  inject: ["src/fetch-globals.ts"],
  entryPoints: { keel: "src/main.ts" },
});
chmodSync(join(root, "dist/bin.cjs"), 0o755);
for (const file of ["keel.cjs", "acp.cjs", ...official.map(({ id }) => `ext-${id}.cjs`)]) {
  const code = readFileSync(join(root, "dist", file), "utf8");
  // Node reads these on every start; pure ASCII makes each a one-byte string instead of a UTF-8
  // decode into a two-byte one. esbuild escapes non-ASCII in code and minifying drops the
  // comments that carried some (em dashes in SDK doc comments); fail if that ever stops holding.
  if (/[^\x00-\x7f]/.test(code))
    throw new Error(`dist/${file} is not pure ASCII; strip or escape what esbuild left in it`);
  // A dynamic import left in a file run from the code cache would fail there; fail here.
  if (/(^|[^\w$.`'"])import\(/m.test(code))
    throw new Error(`dist/${file} contains import(); route it through an esm-import module`);
  if (!code.startsWith(`${CJS_WRAPPER_HEAD}\n`))
    throw new Error(`dist/${file} does not begin with CommonJS's wrapper; build it with compiledByBin`);
}

// The print-mode schema, from the TypeBox module print mode's line types are derived from.
{
  const schemaModule = await build({
    ...common,
    entryPoints: ["src/print/schema.ts"],
    external: [],
    sourcemap: false,
    metafile: false,
    write: false,
    outdir: undefined,
    format: "esm",
  });
  const source = Buffer.from(schemaModule.outputFiles[0].contents).toString("base64");
  const { printSchema } = await import(`data:text/javascript;base64,${source}`);
  writeFileSync(join(root, "dist/print.v1.schema.json"), `${JSON.stringify(printSchema(), null, 2)}\n`);
}

// Tests read the module graph from here (print mode must not reach the TUI, the TUI no kernel).
const builds = [tui, api, front, acpFront, cjs, ...extensions, ...vendored];
const metafile = {
  inputs: Object.assign({}, ...builds.map((b) => b.metafile.inputs)),
  outputs: Object.assign({}, ...builds.map((b) => b.metafile.outputs)),
};
writeFileSync(join(root, "dist/meta.json"), JSON.stringify(metafile));
if (bundleOnly) {
  // Chunks of earlier builds that nothing references any more.
  const current = new Set(Object.keys(metafile.outputs).map((p) => p.replace(/^dist\//, "")));
  for (const name of readdirSync(join(root, "dist")))
    if (/^chunk-.*\.js(\.map)?$/.test(name) && !current.has(name)) rmSync(join(root, "dist", name));
  for (const name of readdirSync(join(root, "dist/tui")))
    if (/^chunk-.*\.js(\.map)?$/.test(name) && !current.has(`tui/${name}`))
      rmSync(join(root, "dist/tui", name));
}

// Declarations for the public API only (index.ts and what it references).
if (!bundleOnly)
  execFileSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--emitDeclarationOnly"],
    { cwd: root, stdio: "inherit" },
  );
