import { chmod, lstat, readdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool, createWriteTool, FileReadTracker } from "../../src/tools/index.js";
import { context, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("Write", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let read: ReturnType<typeof createReadTool>;
  let write: ReturnType<typeof createWriteTool>;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    const tracker = new FileReadTracker();
    read = createReadTool({ cwd: dir, tracker });
    write = createWriteTool({ cwd: dir, tracker });
  });
  afterEach(() => cleanup());

  it("creates a new file and its parent directories", async () => {
    const result = await write.execute({ path: "deep/er/new.txt", content: "a\nb\n" }, context());
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toContain("Created deep/er/new.txt (2 lines");
    expect(result.details).toMatchObject({ created: true, lines: 2, bytes: 4 });
    expect(await readFile(join(dir, "deep/er/new.txt"), "utf8")).toBe("a\nb\n");
  });

  it("refuses to overwrite a file that was never read", async () => {
    await writeTree(dir, { "x.txt": "original" });
    const result = await write.execute({ path: "x.txt", content: "new" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("has not been read");
    expect(await readFile(join(dir, "x.txt"), "utf8")).toBe("original");
  });

  it("overwrites after a Read, and again after its own write", async () => {
    await writeTree(dir, { "x.txt": "original" });
    await read.execute({ path: "x.txt" }, context());
    expect((await write.execute({ path: "x.txt", content: "one" }, context())).isError).toBeUndefined();
    const second = await write.execute({ path: "x.txt", content: "two" }, context());
    expect(textOf(second)).toContain("Overwrote x.txt");
    expect(await readFile(join(dir, "x.txt"), "utf8")).toBe("two");
  });

  it("refuses when the file changed since it was read, but not for a mere touch", async () => {
    await writeTree(dir, { "x.txt": "original" });
    await read.execute({ path: "x.txt" }, context());
    const later = new Date(Date.now() + 5000);
    await utimes(join(dir, "x.txt"), later, later);
    expect((await write.execute({ path: "x.txt", content: "ok" }, context())).isError).toBeUndefined();

    await writeFile(join(dir, "x.txt"), "someone else");
    const result = await write.execute({ path: "x.txt", content: "mine" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("changed on disk since it was last read");
    expect(await readFile(join(dir, "x.txt"), "utf8")).toBe("someone else");
  });

  it("keeps an existing file's mode and leaves no temp files", async () => {
    await writeTree(dir, { "run.sh": "#!/bin/sh\n" });
    await chmod(join(dir, "run.sh"), 0o751);
    await read.execute({ path: "run.sh" }, context());
    await write.execute({ path: "run.sh", content: "#!/bin/sh\necho hi\n" }, context());
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o751);
    expect(await readdir(dir)).toEqual(["run.sh"]);
  });

  it("writes through a symlink to its target", async () => {
    await writeTree(dir, { "real.txt": "old" });
    await symlink(join(dir, "real.txt"), join(dir, "link.txt"));
    await read.execute({ path: "link.txt" }, context());
    await write.execute({ path: "link.txt", content: "new" }, context());
    expect(await readFile(join(dir, "real.txt"), "utf8")).toBe("new");
    expect((await lstat(join(dir, "link.txt"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a directory path", async () => {
    await writeTree(dir, { "sub/a.txt": "" });
    const result = await write.execute({ path: "sub", content: "x" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("is a directory");
  });
});
