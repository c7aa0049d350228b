// After tsc: puts the bash grammar (tree-sitter-bash.wasm) beside the shell parser in dist/, so
// the package ships the one file it loads instead of depending on tree-sitter-bash, whose native
// sources and prebuilds (~20 MB, and an install script) Keel never uses.
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
copyFileSync(grammar, join(root, "dist/permissions/shell/tree-sitter-bash.wasm"));
