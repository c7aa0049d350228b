// The built bin against a model server that misbehaves: a malformed tool call, a stalled stream,
// an endless reply, a cut stream, 429 and 5xx. Each ends with the documented exit code, and the
// session resumes with `keel -c` without a crash report.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockServer, ScenarioStep } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const { fresh } = mockSuite();

/** Words the kernel uses when a session was really interrupted; a provider failure is not that. */
const CRASH_REPORT = /stopped unexpectedly|was interrupted|never started|did not report an outcome/;

function config(ws: Workspace, stream: Record<string, number>): void {
  writeFileSync(join(ws.home, "config.json"), JSON.stringify({ stream }));
}

async function keel(ws: Workspace, server: MockServer, args: string[]) {
  return runKeel([...args, "--model", MODEL, "--cwd", ws.repo], { server, ws });
}

/** `keel -c` continues the session: one more answer, no crash report, the history sent along. */
async function resumesCleanly(ws: Workspace, server: MockServer): Promise<string> {
  server.setScenario({ turns: [{ text: "resumed fine" }] });
  const before = server.requests.length;
  const r = await keel(ws, server, ["-c", "-p", "go on"]);
  expect(r.stderr).not.toMatch(CRASH_REPORT);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("resumed fine\n");
  const sent = server.requests[before]!.raw;
  expect(sent).toContain("go on");
  return sent;
}

describe("a malformed tool call", () => {
  it("one call of three malformed: the other two run, the model retries it, exit 0, -c without a crash", async () => {
    const { server, ws } = fresh([
      {
        toolCalls: [
          { id: "w1", name: "Write", arguments: { path: "one.txt", content: "1" } },
          { id: "w2", name: "Write", arguments: '{"path": "two.txt", "content": "2"' },
          { id: "w3", name: "Write", arguments: { path: "three.txt", content: "3" } },
        ],
      },
      { toolCalls: [{ id: "w2b", name: "Write", arguments: { path: "two.txt", content: "2" } }] },
      { text: "three files written" },
    ]);
    const r = await keel(ws, server, ["-p", "write three files", "--permission-mode", "acceptEdits"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("three files written\n");
    for (const f of ["one.txt", "two.txt", "three.txt"]) expect(existsSync(join(ws.repo, f))).toBe(true);
    expect(server.requests[1]!.raw).toContain("were not valid JSON");
    const sent = await resumesCleanly(ws, server);
    expect(sent).toContain("three files written");
  });
});

describe("a stalled stream (headers, then nothing)", () => {
  it("is dropped at the idle timeout and retried: exit 0", async () => {
    const { server, ws } = fresh([{ text: "never", stallAfterEvents: 0 }, { text: "after the stall" }]);
    config(ws, { idleTimeoutMs: 1000 });
    const r = await keel(ws, server, ["-p", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("after the stall\n");
    expect(r.stderr).toMatch(/^keel: retry 1\/4 in \d+ ms: The model server sent nothing for 1 s/m);
    expect(server.requests).toHaveLength(2);
  });

  it("that never recovers fails cleanly once the retries are spent: exit 1, -c without a crash", async () => {
    const stall: ScenarioStep = { text: "never", stallAfterEvents: 0 };
    const { server, ws } = fresh([stall, stall]);
    config(ws, { idleTimeoutMs: 1000, maxRetries: 1 });
    const started = Date.now();
    const r = await keel(ws, server, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(lines(r.stdout)[0]).toMatchObject({ stopReason: "error", error: { type: "network" } });
    expect(r.stderr).toMatch(/^keel: .*idle timeout/m);
    await resumesCleanly(ws, server);
  });
});

describe("an endless reply", () => {
  it("is stopped at its bound with a clear error: exit 1, -c without a crash", async () => {
    const { server, ws } = fresh([{ text: "and on ", endless: true }]);
    config(ws, { maxReplyChars: 65536 });
    const r = await keel(ws, server, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)[0]).toMatchObject({ stopReason: "error", error: { type: "reply_too_large" } });
    expect(r.stderr).toContain("passed its bound of 65536 characters");
    await resumesCleanly(ws, server);
  });
});

describe("a cut stream", () => {
  it("cut before any content is retried: exit 0", async () => {
    const { server, ws } = fresh([{ text: "lost", disconnectAfterEvents: 2 }, { text: "second try" }]);
    const r = await keel(ws, server, ["-p", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("second try\n");
    expect(r.stderr).toMatch(/^keel: retry 1\/4 in/m);
  });

  it("cut mid-reply keeps the text and fails: exit 1, -c without a crash", async () => {
    const { server, ws } = fresh([
      { text: "partial answer that is cut", chunkSize: 4, disconnectAfterEvents: 5 },
    ]);
    const r = await keel(ws, server, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)[0]).toMatchObject({ stopReason: "error", error: { type: "network" } });
    const sent = await resumesCleanly(ws, server);
    // What the user saw of the cut reply stays in the history.
    expect(sent).toContain("partial ");
  });
});

describe("429 and 5xx", () => {
  it("a 429 is retried after its retry-after: exit 0", async () => {
    const { server, ws } = fresh([
      { kind: "error", status: 429, headers: { "retry-after": "0" } },
      { text: "after the rate limit" },
    ]);
    const r = await keel(ws, server, ["-p", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("after the rate limit\n");
    expect(r.stderr).toMatch(
      /^keel: retry 1\/4 in 0 ms: anthropic answered 429 at http:\/\/127\.0\.0\.1:\d+\/v1\/messages/m,
    );
  });

  it("a 503 that persists fails after the configured retries: exit 1, -c without a crash", async () => {
    const down: ScenarioStep = { kind: "error", status: 503, headers: { "retry-after": "0" } };
    const { server, ws } = fresh([down, down, down]);
    config(ws, { maxRetries: 2 });
    const r = await keel(ws, server, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect(lines(r.stdout)[0]).toMatchObject({ error: { type: "http" } });
    await resumesCleanly(ws, server);
  });
});
