// The README's example must keep compiling against the package as it is.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("README", () => {
  it("its example type-checks against the source", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const dir = mkdtempSync(join(root, ".readme-check-"));
    try {
      writeFileSync(join(dir, "example.ts"), example!);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../tsconfig.json",
          compilerOptions: { noEmit: true, rootDir: ".." },
          include: ["example.ts"],
        }),
      );
      const tsc = join(root, "../../node_modules/typescript/bin/tsc");
      execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { stdio: "pipe" });
    } catch (e) {
      const out = e as { stdout?: Buffer };
      throw new Error(`README example does not compile:\n${out.stdout?.toString() ?? String(e)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
