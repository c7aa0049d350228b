// A session's environment — the date and platform its system prompt gives — is journaled in its
// header and fixed for its life: read back on open, kept by a fork, and derived from the header's
// creation time for sessions written before it existed.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSession, currentPlatform, openSession } from "../src/index.js";
import { must, tempDir, user } from "./helpers.js";

const header = (path: string) =>
  JSON.parse(readFileSync(path, "utf8").split("\n")[0]!) as Record<string, unknown>;

describe("the session's environment", () => {
  it("is written in the header, read back on open and kept by a fork", async () => {
    const dir = tempDir();
    const environment = { date: "2026-12-01", platform: "linux x64" };
    const s = must(await createSession({ dir, cwd: "/p", environment }));
    const m = must(await s.appendMessage(user("hello")));
    expect(header(s.path).environment).toEqual(environment);
    const forked = must(await s.fork(m.id));
    expect(forked.environment).toEqual(environment);
    expect(header(forked.path).environment).toEqual(environment);
    must(await forked.close());
    must(await s.close());
    const again = must(await openSession(s.path));
    expect(again.environment).toEqual(environment);
    must(await again.close());
  });

  it("comes from the creation date for a header without one, and a malformed one is not trusted", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/p" }));
    must(await s.close());
    const h = header(s.path);
    expect(h.environment).toBeUndefined();
    const old = must(await openSession(s.path));
    expect(old.environment).toEqual({ date: String(h.created).slice(0, 10), platform: currentPlatform() });
    must(await old.close());
    const lines = readFileSync(s.path, "utf8").split("\n");
    lines[0] = JSON.stringify({ ...h, environment: { date: 20261201 } });
    writeFileSync(s.path, lines.join("\n"));
    const bad = must(await openSession(s.path));
    expect(bad.environment.date).toBe(String(h.created).slice(0, 10));
    must(await bad.close());
  });
});
