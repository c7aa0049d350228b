// Sessions from the command line: --no-session journals nothing, -r <id> resumes that session,
// --fork continues in a new session that starts with the old one's history.
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lines, MODEL, runKeel, sessionFiles, type Workspace, workspace } from "./helpers.js";

let server: MockServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startMockServer({ turns: [], fallback: { text: "ok" } });
});
afterAll(() => server.close());
afterEach(() => ws?.dispose());

async function json(args: string[]): Promise<{ sessionId: string; code: number | null }> {
  const r = await runKeel(["-p", ...args, "--output-format", "json", "--model", MODEL, "--cwd", ws.repo], {
    server,
    ws,
  });
  const [result] = lines(r.stdout);
  return { sessionId: String(result?.sessionId), code: r.code };
}

describe("sessions", () => {
  it("--no-session journals nothing", async () => {
    ws = workspace();
    const r = await json(["hello", "--no-session"]);
    expect(r.code).toBe(0);
    expect(sessionFiles(ws.home)).toEqual([]);
  });

  it("-r <id> resumes that session, not the latest", async () => {
    ws = workspace();
    const a = await json(["first session"]);
    const b = await json(["second session"]);
    expect(b.sessionId).not.toBe(a.sessionId);
    server.requests.length = 0;
    const resumed = await json(["-r", a.sessionId.slice(0, 8), "back to the first"]);
    expect(resumed).toEqual({ code: 0, sessionId: a.sessionId });
    expect(server.requests[0]!.raw).toContain("first session");
    expect(server.requests[0]!.raw).not.toContain("second session");
  });

  it("--fork continues in a new session carrying the old history", async () => {
    ws = workspace();
    const a = await json(["original"]);
    server.requests.length = 0;
    const continued = await json(["-c", "--fork", "forked work"]);
    const resumedById = await json(["-r", a.sessionId, "--fork", "another fork"]);
    for (const fork of [continued, resumedById]) {
      expect(fork.code).toBe(0);
      expect(fork.sessionId).not.toBe(a.sessionId);
    }
    expect(server.requests[0]!.raw).toContain("original");
    expect(server.requests[1]!.raw).toContain("original");
    expect(server.requests[1]!.raw).not.toContain("forked work");
    expect(sessionFiles(ws.home)).toHaveLength(3);
  });
});
