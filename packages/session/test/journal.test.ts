// The file format and its durability rules: round-trip, torn tail repair, read-only
// fallbacks, the writer lock and fsync policies.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { createSession, openSession } from "../src/index.js";
import { assistant, must, tempDir, toolResult, user } from "./helpers.js";

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("session file", () => {
  it("writes a versioned header and one line per entry, and reads every entry back", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/project" }));
    must(await s.appendMessage(user("hello")));
    must(await s.appendEntry({ type: "model_change", provider: "openai", modelId: "gpt-x" }));
    must(await s.appendEntry({ type: "app_state", extensionId: "todo", state: { items: ["a"] } }));
    must(await s.appendMessage(assistant("hi", [{ id: "c1", name: "Write", args: { path: "a" } }])));
    must(await s.appendEntry({ type: "op_begin", toolCallId: "c1", toolName: "Write", args: { path: "a" } }));
    must(await s.appendEntry({ type: "op_end", toolCallId: "c1", outcome: "ok", summary: "wrote a" }));
    must(await s.appendMessage(toolResult("c1", "Write")));
    must(await s.setName("first session"));
    const written = s.entries();
    must(await s.close());

    const raw = lines(s.path);
    expect(raw[0]).toMatchObject({ type: "session", version: 1, id: s.id, cwd: "/project" });
    expect(raw).toHaveLength(written.length + 1);
    for (const line of raw.slice(1)) {
      expect(Object.keys(line).slice(0, 4)).toEqual(["type", "id", "parentId", "timestamp"]);
    }

    const again = must(await openSession(s.path));
    expect(again.entries()).toEqual(written);
    expect(again.headId).toBe(written[written.length - 2]!.id);
    expect(again.notices).toEqual([]);
    expect(again.fold().name).toBe("first session");
    expect(again.fold().model).toEqual({ provider: "openai", modelId: "gpt-x" });
    must(await again.close());
  });

  it("reads back every entry type it writes: notices, child agents, approvals, a child's header", async () => {
    const dir = tempDir();
    const spawnedBy = { sessionId: "parent-1", agentId: "a1", toolCallId: "t1" };
    const s = must(await createSession({ dir, cwd: "/project", spawnedBy }));
    must(await s.appendMessage(user("hello")));
    must(await s.appendEntry({ type: "notice", source: "subagent", message: user("agent a1 finished") }));
    must(
      await s.appendEntry({ type: "agent_run", agentId: "a1", phase: "start", title: "t", sessionId: "c1" }),
    );
    must(
      await s.appendEntry({
        type: "agent_run",
        agentId: "a1",
        phase: "end",
        title: "t",
        sessionId: "c1",
        outcome: {
          status: "completed",
          stopReason: "stop",
          text: "ok",
          turns: 1,
          usage: assistant("x").usage,
          durationMs: 5,
          model: "m/x",
        },
      }),
    );
    must(
      await s.appendEntry({
        type: "approval",
        source: "extension",
        subject: "github:x",
        decision: "deny",
        reason: "no",
      }),
    );
    must(await s.appendMessage(user("after")));
    const written = s.entries();
    must(await s.close());
    const again = must(await openSession(s.path));
    expect(again.notices).toEqual([]);
    expect(again.entries()).toEqual(written);
    expect(again.header.spawnedBy).toEqual(spawnedBy);
    expect(again.context().map((m) => m.content)).toEqual(["hello", "agent a1 finished", "after"]);
    expect(again.fold().agents.a1?.outcome?.status).toBe("completed");
    must(await again.close());
  });

  it("gives entries short unique ids and chains each to the previous head", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push(must(await s.appendMessage(user(`m${i}`))).id);
    expect(new Set(ids).size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{10}$/);
    const entries = s.entries();
    expect(entries[0]!.parentId).toBeNull();
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.parentId).toBe(entries[i - 1]!.id);
    must(await s.close());
  });

  it("moves a torn last line aside, truncates to the last good line and says so", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("kept")));
    must(await s.close());
    const goodSize = statSync(s.path).size;
    const torn = '{"type":"message","id":"abc","parentId":null,"timestamp":"2025-01-0';
    appendFileSync(s.path, torn);

    const again = must(await openSession(s.path));
    expect(again.entries()).toHaveLength(1);
    expect(statSync(s.path).size).toBe(goodSize);
    const notice = again.notices.find((n) => n.type === "torn_tail_repaired");
    expect(notice).toBeDefined();
    if (notice?.type !== "torn_tail_repaired") throw new Error("unreachable");
    expect(notice.bytes).toBe(Buffer.byteLength(torn));
    expect(readFileSync(notice.corruptPath, "utf8")).toBe(torn);
    expect(basename(notice.corruptPath)).toMatch(/\.jsonl\.corrupt-/);
    // Appending after the repair starts on a clean line.
    must(await again.appendMessage(user("after")));
    must(await again.close());
    expect(lines(s.path)).toHaveLength(3);
  });

  it("measures a torn tail in bytes even when it cuts a multi-byte character", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("héllo ✓")));
    must(await s.close());
    const goodSize = statSync(s.path).size;
    const torn = Buffer.concat([
      Buffer.from('{"type":"message","text":"✓✓'),
      Buffer.from("✓").subarray(0, 2),
    ]);
    appendFileSync(s.path, torn);
    const again = must(await openSession(s.path));
    expect(statSync(s.path).size).toBe(goodSize);
    expect(again.notices[0]).toMatchObject({ type: "torn_tail_repaired", bytes: torn.length });
    expect(again.context().map((m) => m.content)).toEqual(["héllo ✓"]);
    must(await again.close());
  });

  it("treats a complete JSON line without its newline as torn, and keeps it aside", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    appendFileSync(
      s.path,
      JSON.stringify({ type: "message", id: "x", parentId: null, timestamp: "", message: user("?") }),
    );
    const again = must(await openSession(s.path));
    expect(again.entries()).toHaveLength(0);
    expect(again.notices.map((n) => n.type)).toEqual(["torn_tail_repaired"]);
    expect(readdirSync(dirname(s.path)).some((f) => f.includes(".corrupt-"))).toBe(true);
    must(await again.close());
  });

  it("does not repair a torn tail when opened read-only", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("kept")));
    must(await s.close());
    appendFileSync(s.path, "{garbage");
    const size = statSync(s.path).size;
    const ro = must(await openSession(s.path, { readOnly: true }));
    expect(ro.readOnly).toBe(true);
    expect(ro.entries()).toHaveLength(1);
    expect(ro.notices.map((n) => n.type)).toContain("torn_tail_ignored");
    expect(statSync(s.path).size).toBe(size);
    const refused = await ro.appendMessage(user("no"));
    expect(refused._unsafeUnwrapErr().type).toBe("read_only");
  });

  it("opens read-only when the file holds entry types from a newer Keel, and folds around them", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const first = must(await s.appendMessage(user("one")));
    must(await s.close());
    const future = {
      type: "hologram",
      id: "fut1",
      parentId: first.id,
      timestamp: "2030-01-01T00:00:00.000Z",
      x: 1,
    };
    const later = {
      type: "message",
      id: "msg2",
      parentId: "fut1",
      timestamp: "2030-01-01T00:00:01.000Z",
      message: user("two"),
    };
    appendFileSync(s.path, `${JSON.stringify(future)}\n${JSON.stringify(later)}\n`);

    const again = must(await openSession(s.path));
    expect(again.readOnly).toBe(true);
    const notice = again.notices.find((n) => n.type === "read_only");
    expect(notice).toMatchObject({ reason: "unknown_entry_types" });
    expect(notice?.message).toContain("hologram");
    expect(again.entries()).toHaveLength(3);
    const folded = again.fold();
    expect(folded.path).toEqual([first.id, "msg2"]);
    expect(folded.messages.map((m) => m.content)).toEqual(["one", "two"]);
    const refused = await again.appendMessage(user("three"));
    expect(refused._unsafeUnwrapErr().type).toBe("read_only");
    // Read-only sessions hold no lock: a second reader is fine.
    expect(existsSync(`${s.path}.lock`)).toBe(false);
  });

  it("opens read-only when the header version is newer", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    const [header, ...rest] = readFileSync(s.path, "utf8").split("\n");
    writeFileSync(s.path, [JSON.stringify({ ...JSON.parse(header!), version: 2 }), ...rest].join("\n"));
    const again = must(await openSession(s.path));
    expect(again.readOnly).toBe(true);
    expect(again.notices).toContainEqual(
      expect.objectContaining({ type: "read_only", reason: "newer_version" }),
    );
  });

  it("opens read-only, naming the line, when a line in the middle is damaged", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("a")));
    must(await s.appendMessage(user("b")));
    must(await s.close());
    const all = readFileSync(s.path, "utf8").split("\n");
    all[1] = "{damaged";
    writeFileSync(s.path, all.join("\n"));
    const again = must(await openSession(s.path));
    expect(again.readOnly).toBe(true);
    expect(again.notices).toContainEqual(expect.objectContaining({ type: "corrupt_line", line: 2 }));
    expect(again.notices).toContainEqual(expect.objectContaining({ type: "read_only", reason: "damaged" }));
  });

  it("treats a line of a known type without its fields as damage, not as an entry", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("a")));
    must(await s.close());
    // Valid JSON, a known type, but no message: folding it would crash.
    const hollow = { type: "message", id: "hollow0001", parentId: s.entries()[0]!.id, timestamp: "" };
    const all = readFileSync(s.path, "utf8").split("\n");
    all.splice(1, 0, JSON.stringify(hollow));
    writeFileSync(s.path, all.join("\n"));
    const again = must(await openSession(s.path));
    expect(again.getEntry("hollow0001")).toBeUndefined();
    expect(again.notices).toContainEqual(expect.objectContaining({ type: "corrupt_line", line: 2 }));
    expect(again.readOnly).toBe(true);
    expect(again.context()).toEqual([user("a")]);
  });

  it("says so and stays read-only when the last entry names a parent that is not in the file", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.appendMessage(user("a")));
    must(await s.appendMessage(user("b")));
    must(await s.close());
    const all = lines(s.path);
    // The last entry's parent is gone (a line lost, a hand edit): everything before it is cut off.
    const last = { ...all.at(-1)!, parentId: "gone000001" } as unknown as { id: string; parentId: string };
    writeFileSync(s.path, `${[...all.slice(0, -1), last].map((l) => JSON.stringify(l)).join("\n")}\n`);
    const again = must(await openSession(s.path));
    expect(again.notices).toContainEqual(
      expect.objectContaining({ type: "missing_parent", entryId: last.id, parentId: "gone000001" }),
    );
    expect(again.notices).toContainEqual(
      expect.objectContaining({ type: "read_only", reason: "history_missing" }),
    );
    expect(again.readOnly).toBe(true);
    expect((await again.appendMessage(user("c")))._unsafeUnwrapErr().type).toBe("read_only");
    expect(again.fold().warnings).toEqual([
      { type: "dangling_parent", entryId: last.id, parentId: "gone000001" },
    ]);
  });

  it("refuses, as an error value, a file whose parent links form a cycle", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const a = must(await s.appendMessage(user("a")));
    must(await s.appendMessage(user("b")));
    must(await s.close());
    const all = lines(s.path);
    // The first entry names the last as its parent: a → … → a.
    const looped = all.map((l) => (l.id === a.id ? { ...l, parentId: all.at(-1)!.id } : l));
    writeFileSync(s.path, `${looped.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const r = await openSession(s.path);
    expect(r._unsafeUnwrapErr()).toMatchObject({ type: "corrupt", path: s.path });
    expect(r._unsafeUnwrapErr().message).toMatch(/cycle/);
    // Refused without leaving its lock behind: a reader can still look at it... and is refused too.
    expect(existsSync(`${s.path}.lock`)).toBe(false);
    expect((await openSession(s.path, { readOnly: true }))._unsafeUnwrapErr().type).toBe("corrupt");
  });

  it("refuses leaf entries whose head moves form a cycle", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const a = must(await s.appendMessage(user("a")));
    must(await s.close());
    const header = lines(s.path)[0]!;
    const leaf = (id: string, target: string) => ({
      type: "leaf",
      id,
      parentId: a.id,
      timestamp: "2026-01-01T00:00:00.000Z",
      targetId: target,
    });
    const entries = [
      ...lines(s.path).slice(1),
      leaf("leafaaaaaa", "leafbbbbbb"),
      leaf("leafbbbbbb", "leafaaaaaa"),
    ];
    writeFileSync(s.path, `${[header, ...entries].map((l) => JSON.stringify(l)).join("\n")}\n`);
    expect((await openSession(s.path))._unsafeUnwrapErr().message).toMatch(/cycle/);
  });

  it("refuses a file without a valid header", async () => {
    const dir = tempDir();
    writeFileSync(`${dir}/x.jsonl`, '{"type":"message"}\n');
    const r = await openSession(`${dir}/x.jsonl`);
    expect(r._unsafeUnwrapErr()).toMatchObject({ type: "corrupt", line: 1 });
    const missing = await openSession(`${dir}/none.jsonl`);
    expect(missing._unsafeUnwrapErr()).toMatchObject({ type: "io", code: "ENOENT" });
  });
});

describe("writer lock", () => {
  it("refuses a second writer with a typed error naming the holder, and frees the lock on close", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const lock = JSON.parse(readFileSync(`${s.path}.lock`, "utf8")) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: process.pid, hostname: hostname() });

    const second = await openSession(s.path);
    const error = second._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "locked", pid: process.pid, hostname: hostname() });
    expect(error.message).toContain(String(process.pid));
    expect(JSON.parse(JSON.stringify(error))).toEqual(error);

    must(await s.close());
    expect(existsSync(`${s.path}.lock`)).toBe(false);
    must(await must(await openSession(s.path)).close());
  });

  it("reclaims a lock whose process is gone", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    writeFileSync(
      `${s.path}.lock`,
      JSON.stringify({ pid: dead, hostname: hostname(), started: "2020-01-01T00:00:00Z" }),
    );
    const again = must(await openSession(s.path));
    expect(again.notices).toContainEqual(
      expect.objectContaining({ type: "stale_lock_reclaimed", pid: dead }),
    );
    expect(JSON.parse(readFileSync(`${s.path}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    must(await again.close());
  });

  it("honours a lock held on another host (its pid cannot be checked)", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    must(await s.close());
    writeFileSync(
      `${s.path}.lock`,
      JSON.stringify({ pid: 1, hostname: "elsewhere", started: "2020-01-01T00:00:00Z" }),
    );
    expect((await openSession(s.path))._unsafeUnwrapErr()).toMatchObject({
      type: "locked",
      hostname: "elsewhere",
    });
  });
});

describe("fsync policy", () => {
  async function run(policy: "always" | "turn" | "never") {
    const s = must(await createSession({ dir: tempDir(), cwd: "/", fsync: policy }));
    const counts: number[] = [];
    must(await s.appendMessage(user("a")));
    counts.push(s.stats().fsyncs);
    must(await s.appendMessage(assistant("b", [{ id: "c", name: "Bash" }])));
    counts.push(s.stats().fsyncs);
    must(await s.appendEntry({ type: "op_begin", toolCallId: "c", toolName: "Bash", args: {} }));
    counts.push(s.stats().fsyncs);
    must(await s.appendEntry({ type: "op_end", toolCallId: "c", outcome: "ok" }));
    counts.push(s.stats().fsyncs);
    must(await s.sync());
    counts.push(s.stats().fsyncs);
    must(await s.close());
    return counts;
  }

  it("always: every append is flushed before it resolves", async () => {
    expect(await run("always")).toEqual([1, 2, 3, 4, 4]);
  });

  it("turn: only op_begin and turn ends flush", async () => {
    expect(await run("turn")).toEqual([0, 0, 1, 1, 2]);
  });

  it("never: still flushes op_begin (T1 is always durable), nothing else", async () => {
    expect(await run("never")).toEqual([0, 0, 1, 1, 1]);
  });

  it("coalesces concurrent flush requests", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/", fsync: "always" }));
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => s.appendMessage(user(`m${i}`))));
    expect(all.every((r) => r.isOk())).toBe(true);
    expect(s.stats().writes).toBe(20);
    expect(s.stats().fsyncs).toBeLessThanOrEqual(2);
    must(await s.close());
  });
});
