// The one atomic write (kernel config, trust, Write/Edit; connector and MCP credentials): mode,
// symlinks, failure cleanup, and a writer killed between its write and its rename.
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../src/node/index.js";

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
    expect(failed.type).toBe("write_failed");
    // Node 24's recursive mkdir reports a file in the way as EEXIST, earlier Nodes as ENOTDIR.
    expect(["ENOTDIR", "EEXIST"]).toContain(failed.code);
    expect(readdirSync(d)).toEqual(["file"]);
  });

  it("forces `mode` whatever the old file's mode and the umask (0600 for secrets)", () => {
    const path = join(dir(), "credentials.json");
    writeFileSync(path, "{}");
    chmodSync(path, 0o644);
    const previous = process.umask(0o000);
    try {
      writeFileAtomic(path, '{"token":"t"}', { mode: 0o600, dirMode: 0o700 })._unsafeUnwrap();
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const nested = join(dir(), "fresh", "store.json");
      writeFileAtomic(nested, "{}", { mode: 0o600, dirMode: 0o700 })._unsafeUnwrap();
      expect(statSync(nested).mode & 0o777).toBe(0o600);
      expect(statSync(join(nested, "..")).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it("leaves the old content when the writer is killed between its write and its rename", async () => {
    const d = dir();
    const path = join(d, "config.json");
    writeFileSync(path, "old content\n");
    const sdk = fileURLToPath(new URL("../dist/node/index.js", import.meta.url));
    // The child's rename blocks once the new bytes are written and synced: it is killed right there.
    const script = `
      const fs = require("node:fs");
      const { syncBuiltinESMExports } = require("node:module");
      fs.renameSync = () => {
        process.stdout.write("written\\n");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
      };
      syncBuiltinESMExports();
      import(${JSON.stringify(sdk)}).then(({ writeFileAtomic }) =>
        writeFileAtomic(${JSON.stringify(path)}, "new content\\n"));
    `;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("written")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before its rename`)));
    });
    const temp = readdirSync(d).find((name) => name.endsWith(".tmp"));
    expect(temp && readFileSync(join(d, temp), "utf8")).toBe("new content\n");
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(readFileSync(path, "utf8")).toBe("old content\n");
    // The next write replaces it whole; the dead writer's temp file is only litter beside it.
    writeFileAtomic(path, "next\n")._unsafeUnwrap();
    expect(readFileSync(path, "utf8")).toBe("next\n");
    expect(existsSync(join(d, temp!))).toBe(true);
  });
});
