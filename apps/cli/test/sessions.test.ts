// Sessions from the command line: --no-session journals nothing, -r <id> resumes that session,
// --fork continues in a new session that starts with the old one's history.
import { describe, expect, it } from "vitest";
import { type KeelEnv, lines, MODEL, mockSuite, runKeel, sessionFiles } from "./helpers.js";

const { fresh } = mockSuite({ text: "ok" });

async function json(env: KeelEnv, args: string[]): Promise<{ sessionId: string; code: number | null }> {
  const r = await runKeel(
    ["-p", ...args, "--output-format", "json", "--model", MODEL, "--cwd", env.ws.repo],
    env,
  );
  const [result] = lines(r.stdout);
  return { sessionId: String(result?.sessionId), code: r.code };
}

describe("sessions", () => {
  it("--no-session journals nothing", async () => {
    const env = fresh([]);
    const r = await json(env, ["hello", "--no-session"]);
    expect(r.code).toBe(0);
    expect(sessionFiles(env.ws.home)).toEqual([]);
  });

  it("-r <id> resumes that session, not the latest", async () => {
    const env = fresh([]);
    const a = await json(env, ["first session"]);
    const b = await json(env, ["second session"]);
    expect(b.sessionId).not.toBe(a.sessionId);
    env.server.requests.length = 0;
    const resumed = await json(env, ["-r", a.sessionId.slice(0, 8), "back to the first"]);
    expect(resumed).toEqual({ code: 0, sessionId: a.sessionId });
    expect(env.server.requests[0]!.raw).toContain("first session");
    expect(env.server.requests[0]!.raw).not.toContain("second session");
  });

  it("--fork continues in a new session carrying the old history", async () => {
    const env = fresh([]);
    const a = await json(env, ["original"]);
    env.server.requests.length = 0;
    const continued = await json(env, ["-c", "--fork", "forked work"]);
    const resumedById = await json(env, ["-r", a.sessionId, "--fork", "another fork"]);
    for (const fork of [continued, resumedById]) {
      expect(fork.code).toBe(0);
      expect(fork.sessionId).not.toBe(a.sessionId);
    }
    expect(env.server.requests[0]!.raw).toContain("original");
    expect(env.server.requests[1]!.raw).toContain("original");
    expect(env.server.requests[1]!.raw).not.toContain("forked work");
    expect(sessionFiles(env.ws.home)).toHaveLength(3);
  });
});
