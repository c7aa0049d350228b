// Listing sessions from sidecars, topped up from the bytes appended since, or rebuilt.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSession, listSessions, openSession, sessionInfo } from "../src/index.js";
import { assistant, must, tempDir, user } from "./helpers.js";

describe("listSessions", () => {
  it("lists sessions by last activity with name, cwd, first prompt and entry count", async () => {
    const dir = tempDir();
    const a = must(await createSession({ dir, cwd: "/a" }));
    must(await a.appendMessage(user("first prompt of a")));
    must(await a.appendMessage(assistant("reply")));
    must(await a.setName("Session A"));
    must(await a.close());
    const b = must(await createSession({ dir, cwd: "/b" }));
    must(await b.appendMessage(user([...Array(300)].map(() => "x").join(""))));
    must(await b.close());
    writeFileSync(`${dir}/notes.txt`, "not a session");

    const { sessions, problems } = must(listSessions(dir));
    expect(problems).toEqual([]);
    expect(sessions.map((s) => s.id)).toEqual([b.id, a.id]);
    expect(sessions[1]).toMatchObject({
      path: a.path,
      name: "Session A",
      cwd: "/a",
      firstPrompt: "first prompt of a",
      entryCount: 3,
      parentSessionId: null,
    });
    expect(sessions[0]!.firstPrompt).toHaveLength(200);
    expect(existsSync(`${a.path}.meta.json`)).toBe(true);
  });

  it("tops up a stale sidecar from the appended bytes only", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/" }));
    must(await s.appendMessage(user("hello")));
    must(await s.sync()); // turn end: sidecar written
    must(await s.setName("renamed after the last turn"));
    must(await s.appendMessage(user("more")));
    // Crash before close: the sidecar describes an older, shorter file.
    const stale = JSON.parse(readFileSync(`${s.path}.meta.json`, "utf8")) as { entryCount: number };
    expect(stale.entryCount).toBe(1);
    // A line of a known type without its fields is damage, not an entry; then a torn tail.
    appendFileSync(s.path, '{"type":"message","id":"hollow0001","parentId":null,"timestamp":"x"}\n');
    appendFileSync(s.path, '{"type":"mess');

    const info = must(sessionInfo(s.path));
    expect(info).toMatchObject({ name: "renamed after the last turn", entryCount: 3, firstPrompt: "hello" });
    expect(info.lastActivity).toBe(s.entries()[2]!.timestamp);
    must(await s.close());
  });

  it("rebuilds a missing sidecar from the file, and reports unreadable files", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/" }));
    must(await s.appendMessage(user("q")));
    must(await s.close());
    rmSync(`${s.path}.meta.json`);
    writeFileSync(`${dir}/broken.jsonl`, "not json\n");
    const { sessions, problems } = must(listSessions(dir));
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ id: s.id, entryCount: 1, firstPrompt: "q" });
    expect(problems).toEqual([
      {
        path: `${dir}/broken.jsonl`,
        error: expect.objectContaining({ type: "corrupt" }),
        modified: expect.any(String),
      },
    ]);
    // Listers never write into a session's own files; they cache in the directory index.
    expect(existsSync(`${s.path}.meta.json`)).toBe(false);
    expect(existsSync(`${dir}/.keel-sessions-index.json`)).toBe(true);
  });

  it("serves unchanged sessions from the directory index and refreshes changed ones", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/" }));
    must(await s.appendMessage(user("q")));
    must(await s.close());
    expect(must(listSessions(dir)).sessions[0]!.entryCount).toBe(1);
    // The index is what a warm listing reads: a doctored row for an unchanged file shows through.
    const indexPath = `${dir}/.keel-sessions-index.json`;
    const index = JSON.parse(readFileSync(indexPath, "utf8")) as {
      sessions: Record<string, { info: { name: string | null } }>;
    };
    Object.values(index.sessions)[0]!.info.name = "from the index";
    writeFileSync(indexPath, JSON.stringify(index));
    expect(must(listSessions(dir)).sessions[0]!.name).toBe("from the index");
    // Once the session file changes, its row is rebuilt from the file and sidecar.
    const again = must(await openSession(s.path));
    must(await again.appendMessage(user("r")));
    must(await again.close());
    expect(must(listSessions(dir)).sessions[0]).toMatchObject({ name: null, entryCount: 2 });
    rmSync(s.path);
    expect(must(listSessions(dir)).sessions).toEqual([]);
  });

  it("links forks to their parent and returns an empty list for a missing directory", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/" }));
    const m = must(await s.appendMessage(user("q")));
    const f = must(await s.fork(m.id));
    must(await f.close());
    must(await s.close());
    const info = must(sessionInfo(f.path));
    expect(info).toMatchObject({ parentSessionId: s.id, entryCount: 1, firstPrompt: "q" });
    expect(must(listSessions(`${dir}/nothing-here`)).sessions).toEqual([]);
    // Reopening and closing keeps the sidecar exact.
    const again = must(await openSession(s.path));
    must(await again.close());
    expect(must(sessionInfo(s.path)).entryCount).toBe(1);
  });
});
