// The README's provider example is type-checked against the package source, so it cannot drift.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const pkg = resolve(import.meta.dirname, "..");
const repo = resolve(pkg, "../../..");
// Inside the package, so the example resolves neverthrow as a user's project would.
const dir = mkdtempSync(join(pkg, ".readme-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("web-search README", () => {
  it("type-checks the provider example", () => {
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes("ProviderFactory"));
    expect(block).toBeDefined();
    writeFileSync(join(dir, "provider.ts"), block!);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(repo, "tsconfig.base.json"),
        compilerOptions: {
          noEmit: true,
          skipLibCheck: true,
          baseUrl: ".",
          paths: {
            "@keel/ext-web-search": [join(pkg, "src/index.ts")],
            // The other packages as users get them: their built declarations (turbo builds before tests).
            "@keel/extension-sdk": [join(repo, "packages/extension-sdk/dist/index.d.ts")],
            "@keel/ai": [join(repo, "packages/ai/dist/index.d.ts")],
          },
        },
        include: ["provider.ts"],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(repo, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")],
      {
        encoding: "utf8",
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    // tsc takes a few seconds alone and much longer on a loaded machine.
  }, 120_000);
});
