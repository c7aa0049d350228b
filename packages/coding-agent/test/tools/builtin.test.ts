import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, createBuiltinTools, FileReadTracker } from "../../src/tools/index.js";
import { context, makeTempDir, textOf, writeTree } from "./helpers.js";

describe("createBuiltinTools", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  it("returns the seven tools with their declared modes, access and argument roles", () => {
    const tools = createBuiltinTools({ cwd: dir });
    expect(tools.map((t) => t.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    const mode = Object.fromEntries(tools.map((t) => [t.name, [t.executionMode, t.access, t.args]]));
    expect(mode).toEqual({
      Read: ["parallel", "read", { paths: ["path"] }],
      Write: ["sequential", "write", { paths: ["path"] }],
      Edit: ["sequential", "write", { paths: ["path"] }],
      Bash: ["sequential", "exec", { commands: ["command"] }],
      Glob: ["parallel", "read", { paths: ["path"], patterns: ["pattern"] }],
      Grep: ["parallel", "read", { paths: ["path"] }],
      LS: ["parallel", "read", { paths: ["path"] }],
    });
  });

  it("shares one read tracker between Read, Write and Edit", async () => {
    const tracker = new FileReadTracker();
    const tools = createBuiltinTools({ cwd: dir, tracker });
    const byName = (name: string) => tools.find((t) => t.name === name)!;
    await writeTree(dir, { "a.txt": "hello\n" });
    await byName("Read").execute({ path: "a.txt" }, context());
    expect(tracker.get(join(dir, "a.txt"))).toBeDefined();
    const edited = await byName("Edit").execute(
      { path: "a.txt", old_string: "hello", new_string: "bye" },
      context(),
    );
    expect(edited.isError).toBeUndefined();
    const written = await byName("Write").execute({ path: "a.txt", content: "final\n" }, context());
    expect(textOf(written)).toContain("Overwrote");
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("final\n");
  });

  it("keeps the tool definitions sent on every request small", () => {
    // The figure the kernel issue tracks: name + description + JSON schema of all seven tools.
    const bytes = createBuiltinTools({ cwd: dir })
      .map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))
      .reduce((n, s) => n + Buffer.byteLength(s), 0);
    expect(bytes).toBeLessThan(4500);
  });
});
