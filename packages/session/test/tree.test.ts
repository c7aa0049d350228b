// Head movement over the tree: branch, rewind, fork and labels, persisted and replayed.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { createSession, openSession, type Session } from "../src/index.js";
import { assistant, must, tempDir, user } from "./helpers.js";

function texts(s: Session): unknown[] {
  return s.context().map((m) => m.content);
}

async function threeTurns(s: Session) {
  const u1 = must(await s.appendMessage(user("u1")));
  const a1 = must(await s.appendMessage(assistant("a1")));
  const u2 = must(await s.appendMessage(user("u2")));
  const a2 = must(await s.appendMessage(assistant("a2")));
  return { u1, a1, u2, a2 };
}

describe("branch and rewind", () => {
  it("branch moves the head, persists it as a leaf entry and new entries continue from there", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { a1, a2 } = await threeTurns(s);
    expect(must(await s.branch(a1.id))).toBe(a1.id);
    const leaf = s.entries()[s.entries().length - 1]!;
    expect(leaf).toMatchObject({ type: "leaf", targetId: a1.id, parentId: a2.id });
    const u3 = must(await s.appendMessage(user("u3")));
    expect(u3.parentId).toBe(a1.id);
    expect(texts(s)).toEqual(
      ["u1", "a1", "u3"].map((t) => (t.startsWith("a") ? [{ type: "text", text: t }] : t)),
    );
    must(await s.close());

    const again = must(await openSession(s.path));
    expect(again.headId).toBe(u3.id);
    expect(again.fold().path).toEqual([s.entries()[0]!.id, a1.id, u3.id]);
    must(await again.close());
  });

  it("a head set without new content is restored on reopen", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { u1 } = await threeTurns(s);
    must(await s.branch(u1.id));
    must(await s.close());
    const again = must(await openSession(s.path));
    expect(again.headId).toBe(u1.id);
    expect(again.context()).toHaveLength(1);
    must(await again.close());
  });

  it("branching to the current head writes nothing; to null empties the context", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { a2 } = await threeTurns(s);
    const before = s.entries().length;
    must(await s.branch(a2.id));
    expect(s.entries()).toHaveLength(before);
    expect(must(await s.branch(null))).toBeNull();
    expect(s.context()).toEqual([]);
    expect(must(await s.appendMessage(user("fresh"))).parentId).toBeNull();
    must(await s.close());
  });

  it("rewind moves the head to the parent of the entry and returns the entry", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { a1, u2 } = await threeTurns(s);
    const rewound = must(await s.rewind(u2.id));
    expect(rewound.id).toBe(u2.id);
    expect(s.headId).toBe(a1.id);
    const again = must(await s.appendMessage(user("u2 edited")));
    expect(again.parentId).toBe(a1.id);
    must(await s.close());
  });

  it("a branch summary lands where the conversation resumes", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { a1, a2 } = await threeTurns(s);
    must(await s.branch(a1.id, { summary: "tried u2, it failed" }));
    const summary = s.getEntry(s.headId!)!;
    expect(summary).toMatchObject({ type: "branch_summary", fromId: a2.id, parentId: a1.id });
    const last = s.context()[s.context().length - 1]!;
    expect(JSON.stringify(last.content)).toContain("tried u2, it failed");
    must(await s.close());
  });

  it("refuses unknown entry ids with a typed error", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    expect((await s.branch("nope"))._unsafeUnwrapErr()).toMatchObject({
      type: "unknown_entry",
      entryId: "nope",
    });
    expect((await s.rewind("nope"))._unsafeUnwrapErr().type).toBe("unknown_entry");
    expect((await s.label("nope", "x"))._unsafeUnwrapErr().type).toBe("unknown_entry");
    expect(
      (
        await s.appendEntry({
          type: "compaction",
          summary: "",
          firstKeptEntryId: "nope",
          tokensBefore: 0,
          reason: "x",
        })
      )._unsafeUnwrapErr().type,
    ).toBe("unknown_entry");
    must(await s.close());
    expect((await s.appendMessage(user("late")))._unsafeUnwrapErr().type).toBe("closed");
  });
});

describe("labels and name", () => {
  it("labels are session-wide, latest wins, empty removes; they do not move the head", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const { u1, a1, a2 } = await threeTurns(s);
    must(await s.label(u1.id, "start"));
    must(await s.label(a1.id, "good"));
    must(await s.label(a1.id, "better"));
    must(await s.label(u1.id, ""));
    expect(s.headId).toBe(a2.id);
    must(await s.branch(u1.id));
    expect(s.fold().labels).toEqual({ [a1.id]: "better" });
    must(await s.setName("refactor"));
    must(await s.close());
    const again = must(await openSession(s.path));
    expect(again.fold().labels).toEqual({ [a1.id]: "better" });
    expect(again.fold().name).toBe("refactor");
    must(await again.close());
  });
});

describe("fork", () => {
  it("writes a new file holding a copy of the path, linked to its parent", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/work" }));
    const { u1, a1 } = await threeTurns(s);
    must(await s.appendEntry({ type: "app_state", extensionId: "todo", state: { n: 2 } }));
    must(await s.label(a1.id, "here"));
    must(await s.branch(u1.id));
    must(await s.appendEntry({ type: "app_state", extensionId: "todo", state: { n: 1 } }));

    const f = must(await s.fork(a1.id));
    expect(f.path).not.toBe(s.path);
    expect(dirname(f.path)).toBe(dirname(s.path));
    expect(f.header.parentSession).toEqual({ id: s.id, path: s.path, entryId: a1.id });
    expect(f.header.cwd).toBe("/work");
    expect(f.headId).toBe(a1.id);
    expect(f.fold().path).toEqual([u1.id, a1.id]);
    expect(f.context()).toEqual(s.fold().messages.slice(0, 1).concat([a1.message]));
    expect(f.fold().labels).toEqual({ [a1.id]: "here" });
    expect(f.fold().extensionStates).toEqual({});
    must(await f.appendMessage(user("in the fork")));
    must(await f.close());

    // The parent is untouched by the fork.
    expect(s.headId).not.toBe(a1.id);
    must(await s.close());
    const text = readFileSync(f.path, "utf8");
    expect(text.split("\n")[0]).toContain(`"parentSession"`);
  });

  it("continues a read-only session: unknown entries are skipped and the path re-linked", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/" }));
    const first = must(await s.appendMessage(user("one")));
    must(await s.close());
    const { appendFileSync } = await import("node:fs");
    appendFileSync(
      s.path,
      `${JSON.stringify({ type: "future", id: "f1", parentId: first.id, timestamp: "" })}\n${JSON.stringify({
        type: "message",
        id: "m2",
        parentId: "f1",
        timestamp: "",
        message: user("two"),
      })}\n`,
    );
    const ro = must(await openSession(s.path));
    expect(ro.readOnly).toBe(true);
    const f = must(await ro.fork());
    expect(f.readOnly).toBe(false);
    expect(f.entries().map((e) => [e.id, e.parentId])).toEqual([
      [first.id, null],
      ["m2", first.id],
    ]);
    expect(f.context().map((m) => m.content)).toEqual(["one", "two"]);
    must(await f.close());
  });
});
