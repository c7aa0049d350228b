import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, createReadTool, type EditDetails, FileReadTracker } from "../../src/tools/index.js";
import { context, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("Edit", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let read: ReturnType<typeof createReadTool>;
  let edit: ReturnType<typeof createEditTool>;

  const seed = async (name: string, content: string | Buffer) => {
    await writeTree(dir, { [name]: content });
    await read.execute({ path: name }, context());
  };
  const contentOf = (name: string) => readFile(join(dir, name), "utf8");

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    const tracker = new FileReadTracker();
    read = createReadTool({ cwd: dir, tracker });
    edit = createEditTool({ cwd: dir, tracker });
  });
  afterEach(() => cleanup());

  it("applies the single-edit shorthand and returns a unified diff", async () => {
    await seed("a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await edit.execute(
      { path: "a.ts", old_string: "const b = 2;", new_string: "const b = 20;" },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("Edited a.ts: 1 replacement (+1 −1 lines).");
    expect(await contentOf("a.ts")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    const details = result.details as EditDetails;
    expect(details.diff).toContain("@@ -1,3 +1,3 @@");
    expect(details.diff).toContain("-const b = 2;\n+const b = 20;");
  });

  it("applies several edits in order, each seeing the previous result", async () => {
    await seed("a.txt", "one two three\n");
    const result = await edit.execute(
      {
        path: "a.txt",
        edits: [
          { old_string: "one", new_string: "uno" },
          { old_string: "uno two", new_string: "uno dos" },
        ],
      },
      context(),
    );
    expect(result.details).toMatchObject({ edits: 2, replacements: 2 });
    expect(await contentOf("a.txt")).toBe("uno dos three\n");
  });

  it("is all or nothing: a failing later edit leaves the file untouched", async () => {
    await seed("a.txt", "alpha\nbeta\n");
    const result = await edit.execute(
      {
        path: "a.txt",
        edits: [
          { old_string: "alpha", new_string: "ALPHA" },
          { old_string: "gamma", new_string: "GAMMA" },
        ],
      },
      context(),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "Edit 2 of 2: old_string was not found in a.txt. No edits were applied.",
    );
    expect(await contentOf("a.txt")).toBe("alpha\nbeta\n");
  });

  it("requires a unique match unless replace_all", async () => {
    await seed("a.txt", "x = 1\ny = 2\nx = 1\n");
    const ambiguous = await edit.execute(
      { path: "a.txt", old_string: "x = 1", new_string: "x = 9" },
      context(),
    );
    expect(ambiguous.isError).toBe(true);
    expect(textOf(ambiguous)).toContain("occurs 2 times in a.txt (lines 1, 3)");
    expect(await contentOf("a.txt")).toBe("x = 1\ny = 2\nx = 1\n");

    const all = await edit.execute(
      { path: "a.txt", old_string: "x = 1", new_string: "x = 9", replace_all: true },
      context(),
    );
    expect(all.details).toMatchObject({ replacements: 2 });
    expect(await contentOf("a.txt")).toBe("x = 9\ny = 2\nx = 9\n");
  });

  it("keeps replacement text literal ($& and friends)", async () => {
    await seed("a.txt", "price\n");
    await edit.execute({ path: "a.txt", old_string: "price", new_string: "$& costs $1" }, context());
    expect(await contentOf("a.txt")).toBe("$& costs $1\n");
  });

  it("matches LF text in a CRLF file and writes CRLF back", async () => {
    await seed("win.txt", "first\r\nsecond\r\nthird\r\n");
    const result = await edit.execute(
      { path: "win.txt", old_string: "first\nsecond", new_string: "1st\n2nd\nextra" },
      context(),
    );
    expect(result.isError).toBeUndefined();
    expect(await contentOf("win.txt")).toBe("1st\r\n2nd\r\nextra\r\nthird\r\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    await seed("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("hello\n")]));
    await edit.execute({ path: "bom.txt", old_string: "hello", new_string: "bye" }, context());
    const bytes = await readFile(join(dir, "bom.txt"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString()).toBe("bye\n");
  });

  it("refuses a file that was never read", async () => {
    await writeTree(dir, { "a.txt": "hello\n" });
    const result = await edit.execute({ path: "a.txt", old_string: "hello", new_string: "bye" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("has not been read");
    expect(await contentOf("a.txt")).toBe("hello\n");
  });

  it("refuses a file that changed since it was read, then works after a re-read", async () => {
    await seed("a.txt", "hello\n");
    await writeFile(join(dir, "a.txt"), "hello world\n");
    const stale = await edit.execute({ path: "a.txt", old_string: "hello", new_string: "bye" }, context());
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toContain("changed on disk since it was last read");
    await read.execute({ path: "a.txt" }, context());
    await edit.execute({ path: "a.txt", old_string: "hello", new_string: "bye" }, context());
    expect(await contentOf("a.txt")).toBe("bye world\n");
  });

  it("allows consecutive edits without re-reading (its own writes are tracked)", async () => {
    await seed("a.txt", "a\n");
    await edit.execute({ path: "a.txt", old_string: "a", new_string: "b" }, context());
    const second = await edit.execute({ path: "a.txt", old_string: "b", new_string: "c" }, context());
    expect(second.isError).toBeUndefined();
    expect(await contentOf("a.txt")).toBe("c\n");
  });

  it("shows the closest candidate when only whitespace differs", async () => {
    await seed("f.py", "def f():\n    if x:\n        return 1\n    return 2\n");
    const result = await edit.execute(
      { path: "f.py", old_string: "if x:\n  return 1", new_string: "if y:\n  return 1" },
      context(),
    );
    const text = textOf(result);
    expect(result.isError).toBe(true);
    expect(text).toContain("Closest match, lines 2-3 (differs only in whitespace)");
    expect(text).toContain("     2\t    if x:\n     3\t        return 1");
  });

  it("shows the most similar lines when nothing matches exactly", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `filler line number ${i}`);
    lines[24] = "function computeTotal(items, taxRate) {";
    await seed("big.js", `${lines.join("\n")}\n`);
    const result = await edit.execute(
      { path: "big.js", old_string: "function computeTotals(items, rate) {", new_string: "x" },
      context(),
    );
    expect(textOf(result)).toMatch(
      /Closest match, line 25 \(\d+% similar\):\n {4}25\tfunction computeTotal\(items, taxRate\) \{/,
    );
  });

  it("says when no similar text exists", async () => {
    await seed("a.txt", "alpha\n");
    const result = await edit.execute({ path: "a.txt", old_string: "zzzzqqqq", new_string: "x" }, context());
    expect(textOf(result)).toContain("No similar text was found");
  });

  it("rejects malformed requests with a clear message", async () => {
    await seed("a.txt", "alpha\n");
    const both = await edit.execute(
      { path: "a.txt", edits: [{ old_string: "a", new_string: "b" }], old_string: "a", new_string: "b" },
      context(),
    );
    expect(textOf(both)).toContain("either edits or old_string/new_string");
    const same = await edit.execute({ path: "a.txt", old_string: "alpha", new_string: "alpha" }, context());
    expect(textOf(same)).toContain("identical");
    const missing = await edit.execute({ path: "gone.txt", old_string: "a", new_string: "b" }, context());
    expect(textOf(missing)).toContain("To create a new file, use Write");
  });
});
