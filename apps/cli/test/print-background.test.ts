// Background agents in print mode, through the built keel bin against the mock server: a child
// still running when the model's last turn ends is waited for (--wait-children) and its report is
// in the output before the run's result, in every format; with --wait-children 0 it is stopped
// and a line says so. The result line stays the last line of stream-json.
import type { RecordedRequest, ScenarioTurn } from "@keel/testing";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const suite = mockSuite();
type Json = Record<string, unknown>;
const CHILD = "TASK:";
const isChild = (r: RecordedRequest) => JSON.stringify((r.body.messages as Json[])[0] ?? "").includes(CHILD);

const args = (ws: Workspace) => [
  "--permission-mode",
  "bypassPermissions",
  "--model",
  MODEL,
  "--cwd",
  ws.repo,
];
const spawnBg: ScenarioTurn = {
  toolCalls: [
    {
      name: "SpawnAgent",
      arguments: {
        description: "review the diff",
        prompt: `${CHILD} review the diff`,
        run_in_background: true,
      },
    },
  ],
};
const REPORT = "The diff looks right; one typo in README.md.";

/** The parent starts a background child, then ends its run; the child reports `delayMs` later. */
function scenario(delayMs: number) {
  const { server, ws } = suite.fresh([]);
  let parentTurn = 0;
  server.setScenario({
    turns: [],
    fallback: (r) => {
      if (isChild(r)) return { text: REPORT, headerDelayMs: delayMs };
      return parentTurn++ === 0 ? spawnBg : { text: "I started a reviewer; its report follows." };
    },
  });
  return { server, ws };
}

describe("keel -p with a background agent", () => {
  it("waits for a child that reports 3 s after the model's last turn; its report comes before the result line", async () => {
    const { server, ws } = scenario(3_000);
    const started = Date.now();
    const out = await runKeel(["-p", "review", "--output-format", "stream-json", ...args(ws)], {
      server,
      ws,
    });
    expect(out.code, out.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    const all = lines(out.stdout);
    const report = all.findIndex((l) => l.type === "agent_result");
    expect(all[report]).toMatchObject({
      type: "agent_result",
      agentTitle: "review the diff",
      status: "completed",
      text: REPORT,
      stopped: false,
    });
    // Then the result, and nothing after it.
    expect(all.at(-1)).toMatchObject({ type: "result", text: "I started a reviewer; its report follows." });
    expect(report).toBe(all.length - 2);
    expect(out.stderr).not.toMatch(/stopped background agent/);
  });

  it("prints the report after the answer in text mode, and in the result object in json", async () => {
    const text = scenario(500);
    const plain = await runKeel(["-p", "review", ...args(text.ws)], { server: text.server, ws: text.ws });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(
      /I started a reviewer; its report follows\.\n\n── background agent \S+ \(review the diff\): completed\nThe diff looks right; one typo in README\.md\.\n$/,
    );

    const json = scenario(500);
    const one = await runKeel(["-p", "review", "--output-format", "json", ...args(json.ws)], {
      server: json.server,
      ws: json.ws,
    });
    expect(one.code, one.stderr).toBe(0);
    const [result] = lines(one.stdout);
    expect(result).toMatchObject({
      type: "result",
      backgroundAgents: [
        { agentTitle: "review the diff", status: "completed", text: REPORT, stopped: false },
      ],
    });
  });

  it("with --wait-children 0 stops the child and says so plainly", async () => {
    const { server, ws } = scenario(30_000);
    const started = Date.now();
    const out = await runKeel(
      ["-p", "review", "--wait-children", "0", "--output-format", "stream-json", ...args(ws)],
      { server, ws },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(out.stderr).toMatch(
      /keel: stopped background agent \S+ \(review the diff\): it was still running after 0 s \(--wait-children\); what it did so far: keel --read-only -r \S+/,
    );
    const all = lines(out.stdout);
    expect(all.at(-2)).toMatchObject({ type: "agent_result", stopped: true, status: "aborted" });
    expect(all.at(-1)?.type).toBe("result");
  });
});
