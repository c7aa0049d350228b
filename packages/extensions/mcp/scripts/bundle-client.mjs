// After tsc: dist/client.js becomes one file with the MCP SDK's client half (and zod, ajv under
// it) inlined, so `npm i @keel/ext-mcp` installs no SDK, whose manifest also pulls its server half
// (express, hono, cors…: ~100 packages) that a client never loads. The .d.ts files stay as tsc
// wrote them; the SDK is an optional peer for the types `@keel/ext-mcp/client` names.
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// What the package still installs stays an import; everything else the client reaches is inlined.
const external = Object.keys(manifest.dependencies ?? {}).flatMap((n) => [n, `${n}/*`]);

await build({
  absWorkingDir: root,
  entryPoints: [join(dist, "client.js")],
  outfile: join(dist, "client.js"),
  allowOverwrite: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  external,
  sourcemap: true,
  sourcesContent: false,
  minifyWhitespace: true,
  legalComments: "eof",
  logLevel: "warning",
  // Bundled CommonJS (cross-spawn, under the stdio transport) requires Node built-ins, which
  // resolve from anywhere: no import.meta, which a host bundling this file again as CommonJS (the
  // keel bin) would not have. Checked below: nothing else is left to require at run time.
  banner: {
    js: 'import { createRequire as __mcpCreateRequire } from "node:module"; const require = __mcpCreateRequire(process.execPath);',
  },
});

const required = [...readFileSync(join(dist, "client.js"), "utf8").matchAll(/__require\("([^"]+)"\)/g)]
  .map((m) => m[1])
  .filter((name) => !isBuiltin(name));
if (required.length > 0) throw new Error(`dist/client.js requires at run time: ${required.join(", ")}`);

// The extension's own entry must stay light: the SDK is reached only through the client.
const index = await build({
  absWorkingDir: root,
  entryPoints: [join(dist, "index.js")],
  bundle: true,
  write: false,
  platform: "node",
  format: "esm",
  external: [...external, "@keel/ext-mcp/client"],
  metafile: true,
  logLevel: "warning",
});
const sdk = Object.keys(index.metafile.inputs).filter((p) => p.includes("@modelcontextprotocol"));
if (sdk.length > 0) throw new Error(`dist/index.js reaches the MCP SDK: ${sdk.slice(0, 3).join(", ")}`);

// The tsc modules the bundle inlined stay in dist/: no export reaches them (an install's imports
// stop at "." and "./client"), and the conformance driver tests the connection module through them.
