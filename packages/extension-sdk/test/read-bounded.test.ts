// Bounded reads: at most N bytes of a regular file, and nothing else (a FIFO would block the open).
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileBounded } from "../src/node/index.js";

describe("readFileBounded", () => {
  it("reads up to the bound and says the file was longer", () => {
    const path = join(mkdtempSync(join(tmpdir(), "keel-read-")), "f.txt");
    writeFileSync(path, "0123456789");
    expect(readFileBounded(path, 4)._unsafeUnwrap()).toMatchObject({ truncated: true, size: 10 });
    expect(readFileBounded(path, 4)._unsafeUnwrap().bytes.toString()).toBe("0123");
    expect(readFileBounded(path, 64)._unsafeUnwrap()).toMatchObject({ truncated: false, size: 10 });
  });

  it("refuses a folder and a FIFO without blocking, and a missing file as unreadable", () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-read-"));
    expect(readFileBounded(dir, 4)._unsafeUnwrapErr().type).toBe("not_a_file");
    expect(readFileBounded(join(dir, "none"), 4)._unsafeUnwrapErr()).toMatchObject({
      type: "unreadable",
      code: "ENOENT",
    });
    if (process.platform === "win32") return;
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(readFileBounded(fifo, 4)._unsafeUnwrapErr().type).toBe("not_a_file");
  });
});
