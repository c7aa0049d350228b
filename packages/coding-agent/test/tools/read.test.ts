import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool, FileReadTracker, imageMimeTypeForPath, READ_LIMITS } from "../../src/tools/index.js";
import { context, makeTempDir, textOf, writeTree } from "./helpers.js";

const PNG_HEADER = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("Read", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let tracker: FileReadTracker;
  let read: ReturnType<typeof createReadTool>;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    tracker = new FileReadTracker();
    read = createReadTool({ cwd: dir, tracker });
  });
  afterEach(() => cleanup());

  it("numbers lines like cat -n and records the file in the tracker", async () => {
    await writeTree(dir, { "a.txt": "alpha\nbeta\n" });
    const result = await read.execute({ path: "a.txt" }, context());
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("     1\talpha\n     2\tbeta");
    const hash = createHash("sha256").update("alpha\nbeta\n").digest("hex");
    expect(tracker.get(join(dir, "a.txt"))).toMatchObject({ size: 11, hash });
  });

  it("pages with offset and limit and says how to continue", async () => {
    await writeTree(dir, { "n.txt": Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") });
    const result = await read.execute({ path: join(dir, "n.txt"), offset: 4, limit: 3 }, context());
    const text = textOf(result);
    expect(text).toContain("     4\tline 4\n     5\tline 5\n     6\tline 6");
    expect(text).not.toContain("line 7");
    expect(text).toContain("Lines 4-6 of 10. Use offset=7");
    expect(result.details).toMatchObject({ kind: "text", startLine: 4, endLine: 6, totalLines: 10 });
  });

  it("stops at the default limit of 2000 lines", async () => {
    await writeTree(dir, { "big.txt": Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n") });
    const result = await read.execute({ path: "big.txt" }, context());
    expect(result.details).toMatchObject({ endLine: READ_LIMITS.defaultLineLimit, totalLines: 2500 });
    expect(textOf(result)).toContain("Use offset=2001");
  });

  it("cuts very long lines and says so", async () => {
    await writeTree(dir, { "long.txt": `${"x".repeat(5000)}\nshort` });
    const text = textOf(await read.execute({ path: "long.txt" }, context()));
    expect(text).toContain("[3000 more chars]");
    expect(text).toContain("     2\tshort");
    expect(text).toMatch(/1 line\(s\) longer than 2000 chars were cut/);
  });

  it("strips CRLF and reports an offset past the end as an error", async () => {
    await writeTree(dir, { "crlf.txt": "one\r\ntwo\r\n" });
    expect(textOf(await read.execute({ path: "crlf.txt" }, context()))).toBe("     1\tone\n     2\ttwo");
    const past = await read.execute({ path: "crlf.txt", offset: 5 }, context());
    expect(past.isError).toBe(true);
    expect(textOf(past)).toContain("has 2 lines");
  });

  it("refuses binary files: NUL bytes or mostly invalid UTF-8", async () => {
    await writeTree(dir, {
      "nul.bin": Buffer.from([0x41, 0x00, 0x42]),
      "latin.bin": Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 64))),
      "utf8.txt": "héllo wörld ✓\n",
    });
    for (const name of ["nul.bin", "latin.bin"]) {
      const result = await read.execute({ path: name }, context());
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("binary file");
    }
    expect(textOf(await read.execute({ path: "utf8.txt" }, context()))).toContain("héllo wörld ✓");
  });

  it("returns images as base64 image content, by magic number", async () => {
    const png = Buffer.concat([PNG_HEADER, Buffer.from("rest-of-png")]);
    await writeTree(dir, { "pic.png": png });
    const result = await read.execute({ path: "pic.png" }, context());
    const image = result.content.find((c) => c.type === "image");
    expect(image).toEqual({ type: "image", data: png.toString("base64"), mimeType: "image/png" });
    expect(result.details).toMatchObject({ kind: "image", sent: true, bytes: png.length });
    expect(imageMimeTypeForPath("x/PIC.JPG")).toBe("image/jpeg");
    expect(imageMimeTypeForPath("x.ts")).toBeUndefined();
  });

  it("describes the image instead when the model cannot view images", async () => {
    await writeTree(dir, { "pic.png": Buffer.concat([PNG_HEADER, Buffer.from("x")]) });
    const blind = createReadTool({ cwd: dir, tracker, supportsImages: () => false });
    const result = await blind.execute({ path: "pic.png" }, context());
    expect(result.content.every((c) => c.type === "text")).toBe(true);
    expect(textOf(result)).toContain("cannot view images");
  });

  it("refuses images over the size cap", async () => {
    const huge = Buffer.concat([PNG_HEADER, Buffer.alloc(READ_LIMITS.maxImageBytes)]);
    await writeTree(dir, { "huge.png": huge });
    const result = await read.execute({ path: "huge.png" }, context());
    expect(result.isError).toBe(true);
    expect(result.content.some((c) => c.type === "image")).toBe(false);
    expect(textOf(result)).toContain("image limit");
  });

  it("explains missing files, directories and empty files", async () => {
    await writeTree(dir, { "sub/empty.txt": "" });
    const missing = await read.execute({ path: "nope.txt" }, context());
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("No such file or directory: nope.txt");
    const directory = await read.execute({ path: "sub" }, context());
    expect(textOf(directory)).toContain("is a directory");
    const empty = await read.execute({ path: "sub/empty.txt" }, context());
    expect(empty.isError).toBeUndefined();
    expect(textOf(empty)).toContain("is empty");
  });

  it("produces JSON-safe results", async () => {
    await writeTree(dir, { "a.txt": "a\n" });
    const result = await read.execute({ path: "a.txt" }, context());
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});
