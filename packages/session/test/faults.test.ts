// The journal under faults: a full disk (failed and short writes, failed flushes) injected
// through the writer's file-system seam, lines written twice, and locks naming a pid that a
// later, unrelated process now holds.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { createSession, type JournalFileSystem, listSessions, openSession } from "../src/index.js";
import { NODE_FILE_SYSTEM } from "../src/journal-writer.js";
import { assistant, must, tempDir, user } from "./helpers.js";

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
}

/**
 * A disk that fills up on demand: while `full`, a write puts down the first `shortBytes` bytes
 * of what it was given (as a real short write does) and the next call throws ENOSPC; a flush
 * fails too.
 */
function fillableDisk(shortBytes = 7) {
  const disk = { full: false, flushFails: false };
  let wroteShort = false;
  const fs: JournalFileSystem = {
    writeSync(fd, buffer, offset) {
      if (!disk.full) return writeSync(fd, buffer, offset);
      if (!wroteShort) {
        wroteShort = true;
        return writeSync(fd, buffer, offset, Math.min(shortBytes, buffer.length - offset));
      }
      throw enospc();
    },
    fdatasync(fd, callback) {
      if (disk.flushFails)
        return callback(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }));
      NODE_FILE_SYSTEM.fdatasync(fd, callback);
    },
    ftruncateSync: NODE_FILE_SYSTEM.ftruncateSync,
  };
  return {
    disk,
    fs,
    fill() {
      disk.full = true;
      wroteShort = false;
    },
  };
}

function lineTexts(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").slice(1, -1);
}

describe("a full disk", () => {
  it("refuses the append that did not fit, keeps the failure, and goes on once space is back", async () => {
    const { disk, fs, fill } = fillableDisk();
    const s = must(await createSession({ dir: tempDir(), cwd: "/", fileSystem: fs }));
    const kept = must(await s.appendMessage(user("before the disk filled")));

    fill();
    const refused = await s.appendMessage(assistant("does not fit"));
    expect(refused._unsafeUnwrapErr()).toMatchObject({ type: "io", code: "ENOSPC" });
    expect(s.writeFailure).toMatchObject({ type: "io", code: "ENOSPC" });
    expect(s.stats().failures).toBe(1);
    // Still full: refused again, counted again, the head never moved.
    expect((await s.appendMessage(user("still no room"))).isErr()).toBe(true);
    expect(s.stats().failures).toBe(2);
    expect(s.headId).toBe(kept.id);

    disk.full = false;
    const after = must(await s.appendMessage(user("space is back")));
    expect(s.writeFailure).toBeNull();
    expect(after.parentId).toBe(kept.id);
    must(await s.close());

    // The short write's bytes were cut away before the next line: every line parses.
    const texts = lineTexts(s.path);
    expect(texts).toHaveLength(2);
    for (const t of texts) JSON.parse(t);
    const again = must(await openSession(s.path));
    expect(again.notices).toEqual([]);
    expect(again.entries().map((e) => e.id)).toEqual([kept.id, after.id]);
    must(await again.close());
  });

  it("counts a failed flush as a failure and flushes again at the next sync", async () => {
    const { disk, fs } = fillableDisk();
    const s = must(await createSession({ dir: tempDir(), cwd: "/", fileSystem: fs, fsync: "always" }));
    disk.flushFails = true;
    const appended = await s.appendMessage(user("written, not flushed"));
    expect(appended._unsafeUnwrapErr()).toMatchObject({ type: "io", code: "EIO" });
    expect(s.writeFailure).not.toBeNull();
    const failures = s.stats().failures;
    disk.flushFails = false;
    must(await s.sync());
    expect(s.stats().failures).toBe(failures);
    must(await s.appendMessage(user("next")));
    expect(s.writeFailure).toBeNull();
    must(await s.close());
  });

  it("an op_begin that cannot be made durable is refused, so its tool never runs unjournaled", async () => {
    const { fs, fill } = fillableDisk(0);
    const s = must(await createSession({ dir: tempDir(), cwd: "/", fileSystem: fs }));
    fill();
    const t1 = await s.appendEntry({ type: "op_begin", toolCallId: "c1", toolName: "Bash", args: {} });
    expect(t1._unsafeUnwrapErr()).toMatchObject({ code: "ENOSPC" });
    expect(s.fold().recovery).toEqual([]);
    must(await s.close());
  });
});

describe("lines written twice", () => {
  it("skips a repeated last line and says so, instead of letting the copy move the head", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const first = must(await s.appendMessage(user("one")));
    must(await s.appendMessage(assistant("two")));
    // The head goes back to the first message, then a new branch grows there.
    must(await s.branch(first.id));
    const three = must(await s.appendMessage(user("three")));
    must(await s.close());
    const leafLine = lineTexts(s.path).find((l) => l.includes('"type":"leaf"'))!;
    appendFileSync(s.path, `${leafLine}\n`);

    const again = must(await openSession(s.path));
    expect(again.headId).toBe(three.id);
    expect(again.fold().messages.map((m) => m.content)).toEqual(["one", "three"]);
    expect(again.notices).toContainEqual(
      expect.objectContaining({ type: "duplicate_line", line: 6, firstLine: 4 }),
    );
    expect(again.readOnly).toBe(false);
    must(await again.close());
  });

  it("treats two different lines under one entry id as damage (read-only, named)", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const one = must(await s.appendMessage(user("one")));
    must(await s.appendMessage(user("two")));
    must(await s.close());
    const forged = JSON.stringify({ ...one, message: user("not the original") });
    const [header, ...rest] = readFileSync(s.path, "utf8").split("\n");
    writeFileSync(s.path, [header, rest[0], forged, ...rest.slice(1)].join("\n"));

    const again = must(await openSession(s.path));
    expect(again.readOnly).toBe(true);
    expect(again.notices).toContainEqual(expect.objectContaining({ type: "corrupt_line", line: 3 }));
    expect(again.fold().messages.map((m) => m.content)).toEqual(["one", "two"]);
    must(await again.close());
  });
});

describe("a lock naming a live pid", () => {
  it("reclaims the lock when that pid now belongs to a process started after the lock", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    const unrelated = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      writeFileSync(
        `${s.path}.lock`,
        JSON.stringify({ pid: unrelated.pid, hostname: hostname(), started: "2020-01-01T00:00:00.000Z" }),
      );
      const again = must(await openSession(s.path));
      expect(again.notices).toContainEqual(
        expect.objectContaining({ type: "stale_lock_reclaimed", pid: unrelated.pid }),
      );
      must(await again.close());
    } finally {
      unrelated.kill("SIGKILL");
    }
  });

  it("honours the lock when the live pid started before the lock was written", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    const holder = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const started = new Date(Date.now() + 5000).toISOString();
      writeFileSync(`${s.path}.lock`, JSON.stringify({ pid: holder.pid, hostname: hostname(), started }));
      const error = (await openSession(s.path))._unsafeUnwrapErr();
      expect(error).toMatchObject({ type: "locked", pid: holder.pid });
      expect(error.message).toMatch(/read-only/);
    } finally {
      holder.kill("SIGKILL");
    }
  });
});

describe("listing", () => {
  it("names a file it cannot read as a problem with its modification time", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/" }));
    must(await s.close());
    writeFileSync(`${dir}/2099-01-01T00-00-00-000Z_empty.jsonl`, "");
    const listed = must(listSessions(dir));
    expect(listed.sessions.map((x) => x.id)).toEqual([s.id]);
    expect(listed.problems).toHaveLength(1);
    expect(listed.problems[0]).toMatchObject({ error: { type: "corrupt" } });
    expect(Date.parse(listed.problems[0]!.modified!)).toBeGreaterThan(0);
  });
});
