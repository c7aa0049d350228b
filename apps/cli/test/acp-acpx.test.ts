// `keel acp` driven by acpx, a headless ACP client from npm written by others, the way a user would
// run it: a persistent session, a prompt whose Edit is approved and written through acpx's file
// system, Bash, the plan, a cancel from a second acpx process, and the session resumed by a new
// agent process once acpx's queue owner has gone.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processesWith } from "./acp-client.js";
import { BIN, childEnv, MODEL, mockSuite, until, type Workspace } from "./helpers.js";

const { fresh } = mockSuite();
const ACPX = join(createRequire(import.meta.url).resolve("acpx/package.json"), "..", "dist", "cli.js");

interface Run {
  code: number | null;
  /** Every JSON line acpx printed (with --format json: the ACP messages it exchanged, and its own results). */
  json: Record<string, unknown>[];
  stderr: string;
}

function acpx(ws: Workspace, env: NodeJS.ProcessEnv, marker: string, args: string[]): Promise<Run> {
  const agent = [process.execPath, BIN, "acp", "--model", MODEL, "--append-system-prompt", marker].join(" ");
  const argv = [
    ACPX,
    "--agent",
    agent,
    "--ttl",
    "1",
    "--approve-all",
    "--format",
    "json",
    "--cwd",
    ws.repo,
    ...args,
  ];
  return new Promise((resolve) => {
    // acpx keeps its records under $HOME/.acpx: the test's own home.
    const child = spawn(process.execPath, argv, {
      env: { ...env, HOME: ws.home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("close", (code) => {
      const json = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, json, stderr });
    });
  });
}

const methods = (run: Run) => run.json.map((m) => m.method).filter((m): m is string => typeof m === "string");
const updates = (run: Run) =>
  run.json
    .filter((m) => m.method === "session/update")
    .map((m) => (m.params as { update: Record<string, unknown> }).update);
const result = (run: Run) =>
  run.json.find((m) => (m.result as { stopReason?: string } | undefined)?.stopReason !== undefined)?.result as
    | { stopReason: string }
    | undefined;

describe("keel acp under acpx", () => {
  it("prompts, edits through acpx's files, runs Bash, plans, cancels and resumes the session", {
    timeout: 120_000,
  }, async () => {
    expect(
      process.versions.node.localeCompare("22.13.0", undefined, { numeric: true }),
      "acpx needs Node ≥ 22.13",
    ).toBeGreaterThanOrEqual(0);
    const token = `50${process.pid}.${Date.now() % 100000}`;
    const marker = `acpx-test-${token}`;
    const { server, ws } = fresh([
      {
        text: "I'll fix the greeting.",
        toolCalls: [
          {
            id: "toolu_plan",
            name: "UpdateTodos",
            arguments: { todos: [{ id: "1", content: "Fix the greeting", status: "in_progress" }] },
          },
          { id: "toolu_read", name: "Read", arguments: { path: "hello.txt" } },
        ],
      },
      {
        toolCalls: [
          {
            id: "toolu_edit",
            name: "Edit",
            arguments: { path: "hello.txt", old_string: "hello", new_string: "goodbye" },
          },
        ],
      },
      { toolCalls: [{ id: "toolu_bash", name: "Bash", arguments: { command: "echo ran-$((40 + 2))" } }] },
      { text: "Done: the greeting says goodbye." },
      {
        toolCalls: [
          { id: "toolu_sleep", name: "Bash", arguments: { command: `sleep ${token} &\nsleep ${token}` } },
        ],
      },
      { text: "never reached" },
      { text: "Still here." },
    ]);
    const file = join(ws.repo, "hello.txt");
    writeFileSync(file, "hello world\n");
    const env = childEnv({ server, ws });
    const run = (args: string[]) => acpx(ws, env, marker, args);
    const agentsLeft = () => processesWith(marker).length;

    const created = await run(["sessions", "new"]);
    expect(created.code, created.stderr).toBe(0);
    const sessionId = created.json.find((m) => m.action === "session_ensured")?.acpxSessionId as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    // Each prompt below starts once the previous queue owner (and its keel) has gone after its
    // one-second TTL: acpx hands a prompt that reaches an owner in its last moments a retryable
    // "Queue owner is shutting down" error, which a loaded machine (a slow acpx start) hits.
    const ownerGone = (what: string) => until(() => agentsLeft() === 0, what, 20_000);
    await ownerGone("keel to exit after sessions new");
    const first = await run(["prompt", "Make the greeting say goodbye."]);
    expect(first.code, first.stderr).toBe(0);
    expect(result(first)?.stopReason).toBe("end_turn");
    const said = updates(first)
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.content as { text: string }).text);
    expect(said.join("")).toBe("I'll fix the greeting.Done: the greeting says goodbye.");
    const asked = first.json.find((m) => m.method === "session/request_permission");
    expect(asked?.params).toMatchObject({ toolCall: { toolCallId: "toolu_edit" } });
    expect(methods(first)).toEqual(expect.arrayContaining(["fs/read_text_file", "fs/write_text_file"]));
    expect(readFileSync(file, "utf8")).toBe("goodbye world\n");
    const editCall = updates(first).find(
      (u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_edit",
    );
    expect(editCall?.content).toEqual([{ type: "diff", path: file, oldText: "hello", newText: "goodbye" }]);
    const bash = updates(first).find(
      (u) =>
        u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_bash" && u.status === "completed",
    );
    expect(JSON.stringify(bash?.content)).toContain("ran-42");
    expect(
      updates(first)
        .filter((u) => u.sessionUpdate === "plan")
        .at(-1)?.entries,
    ).toEqual([{ content: "Fix the greeting", status: "in_progress", priority: "medium" }]);

    // A second acpx process cancels the running turn: the command and its background job end.
    await ownerGone("keel to exit with the first prompt's queue owner");
    const waiting = run(["prompt", "Now wait a long time."]);
    await until(() => processesWith(token).length >= 2, "the long command to run", 30_000);
    const cancel = await run(["cancel"]);
    expect(cancel.json.find((m) => m.action === "cancel_result")).toMatchObject({ cancelled: true });
    const second = await waiting;
    expect(result(second)?.stopReason).toBe("cancelled");
    await until(() => processesWith(token).length === 0, "no process of the command left", 10_000);

    // acpx's queue owner (and with it keel) goes after its idle TTL; the next prompt starts a new
    // keel that resumes the session (keel offers session/resume, which acpx prefers to a load:
    // it has the history already). The history is seen where it matters: the model's next
    // request carries the whole conversation.
    await ownerGone("keel to exit with acpx's queue owner");
    const third = await run(["prompt", "Still there?"]);
    expect(third.code, third.stderr).toBe(0);
    expect(methods(third)).toContain("session/resume");
    expect(methods(third)).not.toContain("session/new");
    expect(result(third)?.stopReason).toBe("end_turn");
    const last = JSON.stringify(server.requests.at(-1)?.body);
    for (const part of [
      "Make the greeting say goodbye.",
      "toolu_edit",
      "ran-42",
      "Now wait a long time.",
      "Still there?",
    ])
      expect(last).toContain(part);
    await until(() => agentsLeft() === 0, "no keel left behind", 20_000);
  });
});
