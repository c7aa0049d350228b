// The one atomic write behind config, trust and Write/Edit: mode, symlinks, and failure cleanup.
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/fs/atomic-write.js";

const dir = () => mkdtempSync(join(tmpdir(), "keel-atomic-"));

describe("writeFileAtomic", () => {
  it("creates parents, reports a new file, and applies newFileMode", () => {
    const path = join(dir(), "a", "b.json");
    const out = writeFileAtomic(path, "{}\n", { newFileMode: 0o600 })._unsafeUnwrap();
    expect(out.created).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("keeps an existing file's mode and reports it as replaced", () => {
    const path = join(dir(), "x.sh");
    writeFileSync(path, "old");
    chmodSync(path, 0o755);
    const out = writeFileAtomic(path, new Uint8Array([104, 105]), { newFileMode: 0o600 })._unsafeUnwrap();
    expect(out.created).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("hi");
    expect(statSync(path).mode & 0o777).toBe(0o755);
  });

  it("writes through a symlink to its target", () => {
    const d = dir();
    writeFileSync(join(d, "real"), "old");
    symlinkSync(join(d, "real"), join(d, "link"));
    const out = writeFileAtomic(join(d, "link"), "new")._unsafeUnwrap();
    expect(out.path).toBe(join(d, "real"));
    expect(readFileSync(join(d, "real"), "utf8")).toBe("new");
  });

  it("fails as a value and leaves no temp file behind", () => {
    const d = dir();
    writeFileSync(join(d, "file"), "");
    const failed = writeFileAtomic(join(d, "file", "child"), "x")._unsafeUnwrapErr();
    expect(failed.kind).toBe("write_failed");
    // Node 24's recursive mkdir reports a file in the way as EEXIST, earlier Nodes as ENOTDIR.
    expect(["ENOTDIR", "EEXIST"]).toContain(failed.code);
    expect(readdirSync(d)).toEqual(["file"]);
  });
});
