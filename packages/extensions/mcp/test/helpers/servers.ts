// Resolves the official reference servers installed as devDependencies to `node <bin>` specs
// (never npx), and builds resolved server specs for tests.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HttpServerSpec, StdioServerSpec } from "../../src/config/servers.js";

const require = createRequire(import.meta.url);

/** The absolute path of a package's bin script. */
export function binOf(pkg: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(manifestPath), bin);
}

const base = {
  scope: "user" as const,
  origin: "test",
  enabled: true,
  timeoutMs: 20_000,
  startupTimeoutMs: 20_000,
  tools: {},
  readOnlyHints: "trust" as const,
  sampling: { enabled: false, maxTokens: 256, maxRequests: 5 },
};

export function stdioSpec(
  name: string,
  args: string[],
  extra: Partial<StdioServerSpec> = {},
): StdioServerSpec {
  return {
    ...base,
    name,
    transport: "stdio",
    command: process.execPath,
    args,
    env: {},
    cwd: process.cwd(),
    ...extra,
  };
}

export function httpSpec(name: string, url: string, extra: Partial<HttpServerSpec> = {}): HttpServerSpec {
  return { ...base, name, transport: "http", url, headers: {}, oauth: false, ...extra };
}

export const everything = (extra: Partial<StdioServerSpec> = {}) =>
  stdioSpec("everything", [binOf("@modelcontextprotocol/server-everything"), "stdio"], extra);

export function tempDir(prefix = "keel-mcp-"): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  // Retries: a server's log may still be flushing its last line while the test ends.
  return {
    path,
    cleanup: () => rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
  };
}
