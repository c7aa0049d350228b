// The official MCP conformance suite (client mode) against Keel's real connection code: the
// suite starts each scenario's server on localhost and runs test/conformance/driver.mjs, which
// drives the built connection module (dist/). Timing-sensitive sse-retry runs alone.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const suite = join(
  dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);
const driver = join(here, "conformance/driver.mjs");
const baseline = join(here, "conformance/expected-failures.yml");

function run(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [suite, "client", "--command", `${process.execPath} ${driver}`, "--expected-failures", baseline, ...args],
    { encoding: "utf8", timeout: 170_000, env: { ...process.env, NO_PROXY: "127.0.0.1,localhost" } },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe("MCP conformance suite (client)", () => {
  it("runs against the built connection module", () => {
    expect(
      existsSync(join(here, "../dist/connection/connection.js")),
      "build the package first (pnpm build)",
    ).toBe(true);
  });

  for (const scenario of ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]) {
    it(`scenario ${scenario}`, () => {
      const { status, output } = run(["--scenario", scenario]);
      expect(output).toContain("Baseline check passed");
      expect(output).not.toMatch(/FAILURE|WARNING/);
      expect(status, output).toBe(0);
    }, 60_000);
  }

  for (const name of ["auth", "backcompat", "extensions"]) {
    it(`suite ${name}`, () => {
      const { status, output } = run(["--suite", name]);
      expect(output, output).toMatch(/Total: \d+ passed, 0 failed, 0 warnings/);
      expect(output).not.toMatch(/^✗/m);
      expect(status, output).toBe(0);
    }, 180_000);
  }
});
