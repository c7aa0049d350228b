// Shared vitest settings: every @keel/* import resolves to the package's src/, so tests run
// against current source without a prior build (child-process tests still use dist/).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { workspacePackages } from "./scripts/workspace.mjs";

const root = dirname(fileURLToPath(import.meta.url));

function workspaceAliases(): { find: RegExp; replacement: string }[] {
  const dirs = (workspacePackages(root) as { dir: string }[]).map((p) => p.dir);
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const dir of dirs) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    if (!existsSync(join(dir, "src/index.ts"))) continue;
    aliases.push({
      find: new RegExp(`^${name.replace("/", "\\/")}$`),
      replacement: join(dir, "src/index.ts"),
    });
    // Subpath exports (`@keel/extension-sdk/testing`) resolve to src/<sub>.ts the same way.
    for (const key of Object.keys(exports ?? {})) {
      const sub = key.startsWith("./") ? key.slice(2) : "";
      if (!sub || sub.includes("*") || !existsSync(join(dir, "src", `${sub}.ts`))) continue;
      aliases.push({
        find: new RegExp(`^${`${name}/${sub}`.replaceAll("/", "\\/")}$`),
        replacement: join(dir, "src", `${sub}.ts`),
      });
    }
  }
  return aliases;
}

export default defineConfig({
  resolve: { alias: workspaceAliases() },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
  },
});
