// After tsc: puts the bash grammar (tree-sitter-bash.wasm) beside the shell parser in dist/, so
// the package ships the one file it loads instead of depending on tree-sitter-bash, whose native
// sources and prebuilds (~20 MB, and an install script) Keel never uses. Likewise the parser
// runtime: of web-tree-sitter (~6 MB with its debug build, sources and maps) the package ships the
// module, its WASM and its types as dist/node_modules/web-tree-sitter, where Node's resolution
// from dist/ finds it by name.
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const grammar = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
copyFileSync(grammar, join(root, "dist/permissions/shell/tree-sitter-bash.wasm"));

// Not every package exports its package.json; the folder pnpm linked for this package has it.
const from = realpathSync(join(root, "node_modules/web-tree-sitter"));
const { name, version, license } = JSON.parse(readFileSync(join(from, "package.json"), "utf8"));
const to = join(root, "dist/node_modules/web-tree-sitter");
mkdirSync(to, { recursive: true });
// tree-sitter.js finds tree-sitter.wasm beside itself (new URL(…, import.meta.url)).
for (const file of ["tree-sitter.js", "tree-sitter.wasm", "web-tree-sitter.d.ts", "LICENSE"])
  copyFileSync(join(from, file), join(to, file));
const exports = {
  ".": { types: "./web-tree-sitter.d.ts", default: "./tree-sitter.js" },
  "./tree-sitter.wasm": "./tree-sitter.wasm",
};
writeFileSync(
  join(to, "package.json"),
  `${JSON.stringify({ name, version, license, description: "Copied by @keel/coding-agent: the files of this package the shell parser loads.", type: "module", types: "./web-tree-sitter.d.ts", exports }, null, 2)}\n`,
);
