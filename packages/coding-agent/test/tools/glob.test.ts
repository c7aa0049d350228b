import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool, type GlobDetails } from "../../src/tools/index.js";
import { context, gitInit, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("Glob", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let glob: ReturnType<typeof createGlobTool>;
  const lines = (text: string) => text.split("\n\n")[0]!.split("\n");

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    gitInit(dir);
    await writeTree(dir, {
      ".gitignore": "dist/\n*.log\n!keep.log\n",
      "src/a.ts": "",
      "src/lib/b.ts": "",
      "src/lib/.gitignore": "*.gen.ts\n",
      "src/lib/c.gen.ts": "",
      "dist/out.ts": "",
      "node_modules/pkg/index.ts": "",
      "debug.log": "",
      "keep.log": "",
      ".github/ci.ts": "",
    });
  });
  afterEach(() => cleanup());

  it("honours root and nested .gitignore files, negations, and skips node_modules and .git", async () => {
    const result = await glob.execute({ pattern: "**/*.ts" }, context());
    expect(lines(textOf(result)).sort()).toEqual([".github/ci.ts", "src/a.ts", "src/lib/b.ts"]);
    const logs = await glob.execute({ pattern: "*.log" }, context());
    expect(textOf(logs)).toBe("keep.log");
    const git = await glob.execute({ pattern: "**/HEAD" }, context());
    expect(textOf(git)).toContain("No files match");
  });

  it("applies the .gitignore files above a sub-path and .git/info/exclude", async () => {
    await writeTree(dir, { "src/trace.log": "", "src/secret.ts": "", ".git/info/exclude": "secret.ts\n" });
    const result = await glob.execute({ pattern: "*", path: "src" }, context());
    expect(lines(textOf(result))).toEqual(["src/a.ts"]);
  });

  it("searches node_modules or .git when the pattern names them", async () => {
    const result = await glob.execute({ pattern: "node_modules/**/*.ts" }, context());
    expect(textOf(result)).toBe("node_modules/pkg/index.ts");
    expect(textOf(await glob.execute({ pattern: ".git/HEAD" }, context()))).toBe(".git/HEAD");
  });

  it("searches under path, even an ignored directory asked for by name", async () => {
    expect(lines(textOf(await glob.execute({ pattern: "*.ts", path: "src/lib" }, context())))).toEqual([
      "src/lib/b.ts",
    ]);
    expect(textOf(await glob.execute({ pattern: "*.ts", path: "dist" }, context()))).toBe("dist/out.ts");
  });

  it("sorts newest first", async () => {
    const now = Date.now() / 1000;
    await utimes(join(dir, "src/a.ts"), now - 100, now - 100);
    await utimes(join(dir, "src/lib/b.ts"), now, now);
    await utimes(join(dir, ".github/ci.ts"), now - 50, now - 50);
    const result = await glob.execute({ pattern: "**/*.ts" }, context());
    expect(lines(textOf(result))).toEqual(["src/lib/b.ts", ".github/ci.ts", "src/a.ts"]);
  });

  it("caps the results with a note", async () => {
    const capped = createGlobTool({ cwd: dir, maxResults: 2 });
    const result = await capped.execute({ pattern: "**/*.ts" }, context());
    expect(lines(textOf(result))).toHaveLength(2);
    expect(textOf(result)).toContain("Showing 2 of 3 matches");
    expect(result.details).toMatchObject<Partial<GlobDetails>>({ matches: 3, shown: 2 });
  });

  it("handles absolute patterns, literal paths and missing directories", async () => {
    expect(
      textOf(await glob.execute({ pattern: join(dir, "src/**/*.ts") }, context()))
        .split("\n")
        .sort(),
    ).toEqual(["src/a.ts", "src/lib/b.ts"]);
    expect(textOf(await glob.execute({ pattern: "src/a.ts" }, context()))).toBe("src/a.ts");
    const missing = await glob.execute({ pattern: "*.ts", path: "nowhere" }, context());
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("No such file or directory: nowhere");
  });

  beforeEach(() => {
    glob = createGlobTool({ cwd: dir });
  });
});
