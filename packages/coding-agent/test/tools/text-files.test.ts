// Read, Edit and Write through a host's view of text files (an editor's buffers): what the model
// sees is the buffer, and writes land in the host, not on disk behind its back.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { err, ok } from "neverthrow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createEditTool,
  createReadTool,
  createWriteTool,
  FileReadTracker,
  type TextFileAccess,
} from "../../src/index.js";
import { context, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("tools over a host's text files", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let buffers: Map<string, string>;
  let writes: string[];
  let access: TextFileAccess;
  let tools: {
    read: ReturnType<typeof createReadTool>;
    edit: ReturnType<typeof createEditTool>;
    write: ReturnType<typeof createWriteTool>;
  };

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    buffers = new Map();
    writes = [];
    // An editor: open buffers win over the disk; a write lands in the buffer and is saved.
    access = {
      read: async (path) => ok(buffers.get(path) ?? (await readFile(path, "utf8"))),
      write: async (path, text) => {
        writes.push(path);
        buffers.set(path, text);
        return ok(undefined);
      },
    };
    const tracker = new FileReadTracker();
    tools = {
      read: createReadTool({ cwd: dir, tracker, textFiles: access }),
      edit: createEditTool({ cwd: dir, tracker, textFiles: access }),
      write: createWriteTool({ cwd: dir, tracker, textFiles: access }),
    };
  });
  afterEach(() => cleanup());

  it("reads the unsaved buffer and edits it through the host", async () => {
    await writeTree(dir, { "a.ts": "const a = 1;\n" });
    const path = join(dir, "a.ts");
    buffers.set(path, "const a = 2; // unsaved\n");
    expect(textOf(await tools.read.execute({ path: "a.ts" }, context()))).toContain(
      "const a = 2; // unsaved",
    );
    const edited = await tools.edit.execute(
      { path: "a.ts", old_string: "const a = 2;", new_string: "const a = 3;" },
      context(),
    );
    expect(edited.isError).toBeUndefined();
    expect(buffers.get(path)).toBe("const a = 3; // unsaved\n");
    expect(writes).toEqual([path]);
    // The disk was not written behind the editor's back.
    expect(await readFile(path, "utf8")).toBe("const a = 1;\n");
    // The host's copy is what the model last saw: a second edit needs no new Read.
    const again = await tools.edit.execute(
      { path: "a.ts", old_string: "const a = 3;", new_string: "const a = 4;" },
      context(),
    );
    expect(again.isError).toBeUndefined();
  });

  it("refuses to overwrite a buffer that changed since it was read", async () => {
    await writeTree(dir, { "b.txt": "one\n" });
    await tools.read.execute({ path: "b.txt" }, context());
    buffers.set(join(dir, "b.txt"), "typed in the editor\n");
    const result = await tools.write.execute({ path: "b.txt", content: "two\n" }, context());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("changed");
    expect(writes).toEqual([]);
  });

  it("creates a new file through the host and reports the host's failure", async () => {
    const created = await tools.write.execute({ path: "new.txt", content: "hi\n" }, context());
    expect(textOf(created)).toMatch(/^Created new.txt/);
    expect(buffers.get(join(dir, "new.txt"))).toBe("hi\n");
    access.write = async () => err({ type: "text_file", message: "the editor refused" });
    const failed = await tools.write.execute({ path: "other.txt", content: "x" }, context());
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("the editor refused");
  });
});
