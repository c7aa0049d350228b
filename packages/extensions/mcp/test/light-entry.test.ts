// Keel composes this extension into every start, so its entry must not load the MCP SDK (its
// zod schemas alone cost tens of milliseconds): the built entry's static import graph reaches
// no SDK, zod or ajv module; the client loads with the first configured server. The client is
// built with the SDK's client half inlined (scripts/bundle-client.mjs), so an install carries none
// of the SDK's server dependencies.
import { existsSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../dist");

/** Bare specifiers statically imported from `file` and the relative files it imports, recursively. */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  const bare = new Set<string>();
  if (seen.has(file)) return bare;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  // Top-level import/export … from "x" statements; import() expressions are not matched.
  for (const match of source.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";/gms)) {
    const specifier = match[1]!;
    if (specifier.startsWith("."))
      for (const b of staticImports(resolve(dirname(file), specifier), seen)) bare.add(b);
    else bare.add(specifier);
  }
  return bare;
}

describe("the package entry", () => {
  it("loads no MCP SDK, zod or ajv statically", () => {
    expect(existsSync(join(dist, "index.js")), "build the package first (pnpm build)").toBe(true);
    const reached = [...staticImports(join(dist, "index.js"))];
    expect(reached).toContain("@keel/extension-sdk");
    expect(reached.filter((s) => /@modelcontextprotocol|^zod|^ajv/.test(s))).toEqual([]);
  });

  it("while the client entry carries the MCP SDK's client inlined, importing only what the package installs", () => {
    const manifest = JSON.parse(readFileSync(join(dist, "../package.json"), "utf8"));
    const installed = Object.keys(manifest.dependencies ?? {});
    const reached = [...staticImports(join(dist, "client.js"))];
    const foreign = reached.filter(
      (s) => !isBuiltin(s) && !installed.some((name) => s === name || s.startsWith(`${name}/`)),
    );
    expect(foreign).toEqual([]);
    const source = readFileSync(join(dist, "client.js"), "utf8");
    // The SDK's transports are defined in the file itself.
    expect(/\bStreamableHTTPClientTransport\s*=\s*class\b/.test(source)).toBe(true);
    expect(/\bStdioClientTransport\s*=\s*class\b/.test(source)).toBe(true);
  });
});
