// stream-json's promise to scripts, over several kinds of run through the built bin: every line
// validates against the shipped schema, and the result line is the last line — nothing (no
// status line of a closing MCP server, no agent line) follows it. Tool progress reaches the
// stream as tool_progress lines: an MCP server's progress notifications, a command's output.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const suite = mockSuite();
const FIXTURE = fileURLToPath(
  new URL("../../../packages/extensions/mcp/test/fixtures/fixture-server.mjs", import.meta.url),
);
type Json = Record<string, unknown>;

const args = (ws: Workspace) => [
  "--permission-mode",
  "bypassPermissions",
  "--model",
  MODEL,
  "--cwd",
  ws.repo,
  "--output-format",
  "stream-json",
];

function withFixtureServer(ws: Workspace) {
  writeFileSync(
    join(ws.home, "config.json"),
    JSON.stringify({
      extensions: {
        mcp: { config: { servers: { fixture: { command: process.execPath, args: [FIXTURE] } } } },
      },
    }),
  );
}

/** Every line valid (lines() checks each against the schema), the result line last and alone at the end. */
function expectResultLast(stdout: string, results = 1): Json[] {
  const all = lines(stdout);
  expect(all.filter((l) => l.type === "result")).toHaveLength(results);
  expect(all.at(-1)?.type, JSON.stringify(all.slice(-3))).toBe("result");
  return all;
}

describe("stream-json: valid lines, and the result line last", () => {
  it("a plain answer, with partial messages", async () => {
    const { server, ws } = suite.fresh([{ text: "Hello there." }]);
    const out = await runKeel(["-p", "hi", "--include-partial-messages", ...args(ws)], { server, ws });
    expect(out.code, out.stderr).toBe(0);
    const all = expectResultLast(out.stdout);
    expect(all.some((l) => l.type === "text_delta")).toBe(true);
  });

  it("an MCP tool reporting progress: tool_progress lines with its numbers; no status line after the result", async () => {
    const { server, ws } = suite.fresh([
      { toolCalls: [{ name: "SearchTools", arguments: { query: "slow" } }] },
      {
        toolCalls: [
          {
            name: "ExecuteTool",
            arguments: { toolRef: "mcp__fixture__slow", arguments: { ms: 600, every: 100 } },
          },
        ],
      },
      { text: "Waited." },
    ]);
    withFixtureServer(ws);
    const out = await runKeel(["-p", "wait a bit", ...args(ws)], { server, ws });
    expect(out.code, out.stderr).toBe(0);
    const all = expectResultLast(out.stdout);
    const progress = all.filter((l) => l.type === "tool_progress");
    expect(progress.length).toBeGreaterThan(2);
    expect(progress[0]).toMatchObject({
      toolName: "ExecuteTool",
      details: { progress: { total: 600 } },
    });
    expect(String(progress[0]!.text)).toMatch(/^progress \d+ of 600/);
    // The server's status was reported while the run went on, never after its end.
    const statuses = all.filter((l) => l.type === "status");
    expect(statuses.length).toBeGreaterThan(0);
  });

  it("a command's output as it comes, and a background agent reported before the result", async () => {
    const { server, ws } = suite.fresh([]);
    let parentTurn = 0;
    const isChild = (r: RecordedRequest) => JSON.stringify((r.body.messages as Json[])[0]).includes("TASK:");
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (isChild(r)) return { text: "child done", headerDelayMs: 300 };
        const n = parentTurn++;
        if (n === 0)
          return {
            toolCalls: [
              { name: "Bash", arguments: { command: "for i in 1 2 3 4; do echo line $i; sleep 0.4; done" } },
            ],
          };
        if (n === 1)
          return {
            toolCalls: [
              {
                name: "SpawnAgent",
                arguments: { description: "side task", prompt: "TASK: side task", run_in_background: true },
              },
            ],
          };
        return { text: "Done here." };
      },
    });
    const out = await runKeel(["-p", "run it", ...args(ws)], { server, ws });
    expect(out.code, out.stderr).toBe(0);
    const all = expectResultLast(out.stdout);
    expect(
      all.some((l) => l.type === "tool_progress" && l.toolName === "Bash" && /line 1/.test(String(l.text))),
    ).toBe(true);
    expect(all.at(-2)).toMatchObject({ type: "agent_result", text: "child done" });
  });

  it("stdin messages: one result per message, the last line a result", async () => {
    const { server, ws } = suite.fresh([{ text: "one" }, { text: "two" }]);
    withFixtureServer(ws);
    const input = ["first", "second"]
      .map((content) => `${JSON.stringify({ type: "user", content })}\n`)
      .join("");
    const out = await runKeel(["-p", "--input-format", "stream-json", ...args(ws)], { server, ws, input });
    expect(out.code, out.stderr).toBe(0);
    expectResultLast(out.stdout, 2);
  });

  it("a failed run ends in its result line too", async () => {
    const { server, ws } = suite.fresh([{ kind: "error", status: 400, message: "bad request" }]);
    withFixtureServer(ws);
    const out = await runKeel(["-p", "hi", ...args(ws)], { server, ws });
    expect(out.code).toBe(1);
    const all = expectResultLast(out.stdout);
    expect(all.at(-1)).toMatchObject({ isError: true });
  });
});
