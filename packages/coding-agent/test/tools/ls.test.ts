import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLsTool } from "../../src/tools/index.js";
import { context, gitInit, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("LS", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    gitInit(dir);
    await writeTree(dir, {
      ".gitignore": "dist/\n",
      "README.md": "",
      "src/index.ts": "",
      "src/util/x.ts": "",
      "dist/bundle.js": "",
      "node_modules/a/index.js": "",
      "tmp/scratch.txt": "",
    });
  });
  afterEach(() => cleanup());

  it("prints a tree with directories first and marked, skipping ignored entries", async () => {
    const result = await createLsTool({ cwd: dir }).execute({}, context());
    expect(textOf(result)).toBe(
      [
        ".",
        "  src/",
        "    util/",
        "      x.ts",
        "    index.ts",
        "  tmp/",
        "    scratch.txt",
        "  .gitignore",
        "  README.md",
      ]
        .join("\n")
        .replace(/^\./, "./"),
    );
  });

  it("leaves out entries matching ignore globs", async () => {
    const result = await createLsTool({ cwd: dir }).execute(
      { path: "src", ignore: ["util", "*.md"] },
      context(),
    );
    expect(textOf(result)).toBe("src/\n  index.ts");
  });

  it("caps the listing breadth-first with a note", async () => {
    const result = await createLsTool({ cwd: dir, maxEntries: 3 }).execute({}, context());
    const text = textOf(result);
    expect(text).toContain("Listing stopped at 3 entries");
    expect(result.details).toEqual({ entries: 3, capped: true });
    expect(text).toContain("  src/");
  });

  it("refuses files and missing paths", async () => {
    const ls = createLsTool({ cwd: dir });
    expect(textOf(await ls.execute({ path: "README.md" }, context()))).toContain("is a file");
    expect((await ls.execute({ path: "nope" }, context())).isError).toBe(true);
  });
});
