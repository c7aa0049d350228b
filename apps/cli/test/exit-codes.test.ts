// Every exit code of the bin: 0 ok, 1 failed, 2 usage / nothing configured / refused, 130 interrupted
// (and the interrupted session resumes with -c).
import { noModelMessage } from "@keel/coding-agent";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, startKeel, until } from "./helpers.js";

const { fresh } = mockSuite();

// retry-after: 0 keeps the provider's bounded retries (4 after the first attempt) instant.
const serverError = { kind: "error" as const, status: 500, headers: { "retry-after": "0" } };

describe("exit codes", () => {
  it("0 when the run finishes", async () => {
    const { server, ws } = fresh([{ text: "done" }]);
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r.code).toBe(0);
  });

  it("1 when the provider keeps failing and retries run out", async () => {
    const { server, ws } = fresh([serverError, serverError, serverError, serverError, serverError]);
    const r = await runKeel(["-p", "hi", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(5);
    const [result] = lines(r.stdout);
    expect(result).toMatchObject({ type: "result", stopReason: "error", error: { type: "http" } });
    expect(r.stderr).toMatch(/^keel: .*500/m);
  });

  it("1 with a note when --max-turns stops the run", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "LS", arguments: { path: "." } }] },
      { toolCalls: [{ name: "LS", arguments: { path: "." } }] },
    ]);
    const r = await runKeel(["-p", "look", "--max-turns", "1", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--max-turns");
    expect(server.requests).toHaveLength(1);
  });

  it("2 on a usage error, with the message on stderr and nothing on stdout", async () => {
    const { server, ws } = fresh([]);
    const r = await runKeel(["-p", "hi", "--permission-mode", "yolo"], { server, ws });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("--permission-mode must be one of");
  });

  it("2 when no provider is configured, saying what to set", async () => {
    const { ws } = fresh([]);
    const r = await runKeel(["-p", "hi", "--cwd", ws.repo], { ws });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(noModelMessage(ws.home));
    // The file named is the one of this Keel home (KEEL_HOME), not ~/.keel's.
    expect(r.stderr).toContain(`${ws.home}/config.json`);
    expect(r.stderr).not.toContain("~/.keel/config.json");
  });

  it("2 when the session to resume does not exist", async () => {
    const { server, ws } = fresh([]);
    const r = await runKeel(["-p", "hi", "-r", "no-such-session", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no-such-session");
    expect(server.requests).toHaveLength(0);
  });

  it("130 on SIGINT mid-reply; keel -c then continues the same session", async () => {
    const { server, ws } = fresh([
      { text: "this reply is slow", headerDelayMs: 30_000 },
      { text: "resumed" },
    ]);
    const first = startKeel(
      ["-p", "start", "--output-format", "stream-json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
      },
    );
    const init = JSON.parse(await first.waitForLine((l) => l.includes('"init"'))) as { sessionId: string };
    await until(() => server.requests.length === 1, "the first model request");
    first.child.kill("SIGINT");
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(lines(interrupted.stdout).at(-1)).toMatchObject({ type: "result", stopReason: "aborted" });

    const again = await runKeel(
      ["-c", "-p", "go on", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
      },
    );
    expect(again.code).toBe(0);
    const [result] = lines(again.stdout);
    expect(result).toMatchObject({ type: "result", text: "resumed", sessionId: init.sessionId });
    // The resumed request carries the first prompt: the interrupted session was kept intact.
    expect(server.requests[1]!.raw).toContain("start");
    expect(server.requests[1]!.raw).toContain("go on");
  });
});
