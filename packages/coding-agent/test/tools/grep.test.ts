import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGrepTool, type GrepDetails } from "../../src/tools/index.js";
import { context, gitInit, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("Grep", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let grep: ReturnType<typeof createGrepTool>;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    gitInit(dir);
    await writeTree(dir, {
      ".gitignore": "build/\n",
      "src/a.ts": "import x from 'y';\nconst TODO = 1;\n// todo: later\nexport {};\n",
      "src/b.py": "# TODO python\nprint('hi')\n",
      "build/gen.ts": "TODO generated\n",
      "node_modules/m/index.js": "TODO dep\n",
      "blob.bin": Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2])]),
    });
    grep = createGrepTool({ cwd: dir });
  });
  afterEach(() => cleanup());

  it("lists matching files, skipping ignored, vendored and binary files", async () => {
    const result = await grep.execute({ pattern: "TODO" }, context());
    const text = textOf(result);
    expect(text.split("\n")[0]).toBe("Found 2 files");
    expect(text.split("\n").slice(1).sort()).toEqual(["src/a.ts", "src/b.py"]);
    expect(result.details).toMatchObject<Partial<GrepDetails>>({ files: 2, binarySkipped: 1 });
  });

  it("shows content with line numbers, context and group separators", async () => {
    const result = await grep.execute(
      { pattern: "TODO|export", path: "src/a.ts", output_mode: "content" },
      context(),
    );
    expect(textOf(result)).toBe(
      "Found 2 matching lines in 1 file\nsrc/a.ts:2:const TODO = 1;\n--\nsrc/a.ts:4:export {};",
    );
    const withContext = await grep.execute(
      { pattern: "TODO", path: "src/a.ts", output_mode: "content", "-C": 1 },
      context(),
    );
    expect(textOf(withContext)).toBe(
      "Found 1 matching line in 1 file\nsrc/a.ts-1-import x from 'y';\nsrc/a.ts:2:const TODO = 1;\nsrc/a.ts-3-// todo: later",
    );
    const bare = await grep.execute(
      { pattern: "print", path: "src", output_mode: "content", "-n": false },
      context(),
    );
    expect(textOf(bare)).toBe("Found 1 matching line in 1 file\nsrc/b.py:print('hi')");
  });

  it("counts matches per file, case-insensitively with -i", async () => {
    const result = await grep.execute(
      { pattern: "todo", output_mode: "count", "-i": true, glob: "*.ts" },
      context(),
    );
    expect(textOf(result)).toBe("Found 2 matching lines in 1 file\nsrc/a.ts:2");
  });

  it("filters by glob and limits with head_limit", async () => {
    expect(textOf(await grep.execute({ pattern: "TODO", glob: "**/*.py" }, context()))).toBe(
      "Found 1 file\nsrc/b.py",
    );
    const limited = await grep.execute(
      { pattern: ".", path: "src/a.ts", output_mode: "content", head_limit: 2 },
      context(),
    );
    expect(textOf(limited)).toContain(
      "src/a.ts:1:import x from 'y';\nsrc/a.ts:2:const TODO = 1;\n\n[First 2 of",
    );
  });

  it("searches node_modules and ignored directories when asked by path", async () => {
    expect(textOf(await grep.execute({ pattern: "TODO", path: "node_modules" }, context()))).toContain(
      "node_modules/m/index.js",
    );
    expect(textOf(await grep.execute({ pattern: "TODO", path: "build" }, context()))).toContain(
      "build/gen.ts",
    );
  });

  it("reports invalid regexes and missing paths as errors", async () => {
    const bad = await grep.execute({ pattern: "(unclosed" }, context());
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("Invalid regex");
    expect((await grep.execute({ pattern: "x", path: "missing" }, context())).isError).toBe(true);
    expect((await grep.execute({ pattern: "\\p{Lu}ODO" }, context())).isError).toBeUndefined();
  });

  it("says so when nothing matches", async () => {
    const result = await grep.execute({ pattern: "nothing-here-zz" }, context());
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toContain("No matches");
  });

  it("notes when the file cap or output cap is hit", async () => {
    const fewFiles = createGrepTool({ cwd: dir, maxFiles: 1 });
    const capped = await fewFiles.execute({ pattern: "TODO" }, context());
    expect(capped.details).toMatchObject({ limitHit: "files" });
    expect(textOf(capped)).toContain("Stopped after 1 files");

    await writeTree(dir, { "many.txt": Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n") });
    const fewLines = createGrepTool({ cwd: dir, maxOutputLines: 10 });
    const out = await fewLines.execute(
      { pattern: "hit", path: "many.txt", output_mode: "content" },
      context(),
    );
    expect(out.details).toMatchObject({ limitHit: "output" });
    expect(
      textOf(out)
        .split("\n")
        .filter((l) => l.startsWith("many.txt:")),
    ).toHaveLength(10);
  });

  it("streams large files and stops reading one at the per-file byte cap", async () => {
    const filler = `${"x".repeat(99)}\n`.repeat(30_000); // 3 MB, read in chunks
    await writeFile(join(dir, "large.txt"), `${filler}needle at the end\n`);
    const found = await grep.execute(
      { pattern: "needle", path: "large.txt", output_mode: "content" },
      context(),
    );
    expect(textOf(found)).toContain("large.txt:30001:needle at the end");
    const bounded = createGrepTool({ cwd: dir, maxFileBytes: 1024 * 1024 });
    const cut = await bounded.execute({ pattern: "needle", path: "large.txt" }, context());
    expect(textOf(cut)).toContain("No matches");
  });
});
