// The Skill tool's file access: a bounded listing, reads confined to the skill folder by
// realpath (`..`, absolute paths and symlinks out refused), binary files described not dumped.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSkillFiles, readSkillFile, resolveInside } from "../src/files.js";
import { skillMd, type Tree, tree, writeSkill } from "./fixtures.js";

let t: Tree;
let dir: string;
beforeEach(() => {
  t = tree();
  dir = writeSkill(join(t.keelHome, "skills"), "pdf", skillMd({ name: "pdf", description: "PDFs." }), {
    "scripts/extract.py": "print('hi')\n",
    "references/REFERENCE.md": "# Reference\n",
    "assets/logo.png": "\x89PNG\0\0\0binary",
    ".hidden": "x",
  });
  writeFileSync(join(t.root, "secret.txt"), "TOP SECRET");
});
afterEach(() => t.cleanup());

describe("listSkillFiles", () => {
  it("lists the folder's files, SKILL.md and hidden ones left out", async () => {
    expect(await listSkillFiles(dir)).toEqual({
      files: ["assets/logo.png", "references/REFERENCE.md", "scripts/extract.py"],
      truncated: false,
    });
  });

  it("says when it stopped at its bound", async () => {
    expect(await listSkillFiles(dir, 2)).toEqual({
      files: ["assets/logo.png", "references/REFERENCE.md"],
      truncated: true,
    });
  });
});

describe("readSkillFile", () => {
  it("reads a referenced file", async () => {
    const read = (await readSkillFile(dir, "references/REFERENCE.md"))._unsafeUnwrap();
    expect(read).toMatchObject({ kind: "text", text: "# Reference\n", truncated: false });
  });

  it("refuses `..`, absolute paths and a symlink out of the folder", async () => {
    symlinkSync(join(t.root, "secret.txt"), join(dir, "references", "escape.md"));
    symlinkSync(t.root, join(dir, "up"));
    for (const path of [
      "../../../secret.txt",
      "scripts/../../x",
      join(t.root, "secret.txt"),
      "references/escape.md",
      "up/secret.txt",
    ]) {
      const r = await readSkillFile(dir, path);
      expect(r.isErr(), path).toBe(true);
      expect(r._unsafeUnwrapErr().type, path).toBe("outside");
      expect(r._unsafeUnwrapErr().message).toContain("refused");
    }
  });

  it("follows a symlink that stays inside the folder", async () => {
    symlinkSync(join(dir, "scripts", "extract.py"), join(dir, "run.py"));
    expect((await readSkillFile(dir, "run.py"))._unsafeUnwrap()).toMatchObject({ text: "print('hi')\n" });
  });

  it("describes binary files and truncates long ones", async () => {
    expect((await readSkillFile(dir, "assets/logo.png"))._unsafeUnwrap()).toMatchObject({ kind: "binary" });
    writeFileSync(join(dir, "long.md"), "y".repeat(500));
    const long = (await readSkillFile(dir, "long.md", 100))._unsafeUnwrap();
    expect(long).toMatchObject({ kind: "text", truncated: true, size: 500 });
    expect(long.kind === "text" && long.text.length).toBe(100);
  });

  it("says what is missing or not a file", async () => {
    expect((await readSkillFile(dir, "nope.md"))._unsafeUnwrapErr().type).toBe("not_found");
    expect((await readSkillFile(dir, "scripts"))._unsafeUnwrapErr().type).toBe("not_a_file");
    expect((await resolveInside(dir, "."))._unsafeUnwrapErr().type).toBe("not_a_file");
    mkdirSync(join(dir, "deep"));
    expect((await readSkillFile(dir, ""))._unsafeUnwrapErr().type).toBe("outside");
  });
});
