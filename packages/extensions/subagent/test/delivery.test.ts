// The delivery state machine and the texts it delivers, as pure functions: which entries move,
// which notices a branch owes after a resume, and how results and notices are bounded.
import type { AgentRecord, AgentRunResult } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import { delivered, withChild } from "../src/delivery.js";
import { type ChildEntry, noticeText, owedNotices, resultText, type SubagentState } from "../src/index.js";

const usage: AgentRunResult["usage"] = {
  input: 900,
  output: 300,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  totalTokens: 1200,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};

function result(agentId: string, status: AgentRunResult["status"], text = "the answer"): AgentRunResult {
  return {
    agentId,
    title: `task ${agentId}`,
    status,
    stopReason: status === "completed" ? "stop" : "aborted",
    text,
    turns: 2,
    usage,
    durationMs: 1500,
    model: "anthropic/claude-haiku-5-5",
    sessionId: `session-${agentId}`,
    sessionFile: `/sessions/children/${agentId}.jsonl`,
    ...(status === "interrupted"
      ? { error: { type: "interrupted", message: "Keel stopped while this agent was running." } }
      : {}),
  };
}

const record = (r: AgentRunResult): AgentRecord => ({
  agentId: r.agentId,
  title: r.title,
  sessionId: r.sessionId,
  startedAt: "2026-01-01T00:00:00.000Z",
  status: r.status,
  result: r,
});
const entry = (agentId: string, background: boolean, delivery: ChildEntry["delivery"]): ChildEntry => ({
  agentId,
  title: `task ${agentId}`,
  agent: "general-purpose",
  background,
  delivery,
});

describe("delivery", () => {
  it("moves only a waiting entry, once", () => {
    const state: SubagentState = { children: [entry("a", true, "waiting"), entry("b", true, "notice")] };
    const pulled = delivered(state, "a", "pulled")!;
    expect(pulled.children.map((c) => c.delivery)).toEqual(["pulled", "notice"]);
    expect(delivered(pulled, "a", "notice")).toBeUndefined();
    expect(delivered(state, "b", "pulled")).toBeUndefined();
    expect(delivered(state, "missing", "notice")).toBeUndefined();
    expect(withChild(state, entry("a", true, "returned")).children.map((c) => c.agentId)).toEqual(["a", "b"]);
  });

  it("owes a notice for ended background children not yet handed over, again for handed-over ones, for foreground ones only when interrupted", () => {
    const state: SubagentState = {
      children: [
        entry("bg-ended", true, "waiting"),
        entry("bg-told", true, "notice"),
        entry("bg-pulled", true, "pulled"),
        entry("bg-live", true, "waiting"),
        entry("fg-done", false, "waiting"),
        entry("fg-cut", false, "waiting"),
        entry("fg-returned", false, "returned"),
        entry("no-record", true, "waiting"),
      ],
    };
    const records = [
      record(result("bg-ended", "failed")),
      record(result("bg-told", "completed")),
      record(result("bg-pulled", "completed")),
      { ...record(result("bg-live", "completed")), status: "running" as const },
      record(result("fg-done", "completed")),
      record(result("fg-cut", "interrupted")),
      record(result("fg-returned", "completed")),
    ];
    const owed = owedNotices(state, records, (id) => id === "bg-live");
    expect(owed.map((r) => r.agentId)).toEqual(["bg-ended", "bg-told", "fg-cut"]);
  });
});

describe("texts", () => {
  it("bounds a notice near its budget and points at the whole result", () => {
    const long = result("a", "completed", "x".repeat(10_000));
    const text = noticeText(long, 2000);
    expect(text.length).toBeLessThanOrEqual(2100);
    expect(text).toMatch(
      /^Background agent a \(task a\) finished\. 2 turns, 1\.2k tokens, \$0\.0030, 1\.5 s, anthropic\/claude-haiku-5-5\./,
    );
    expect(text).toMatch(/more characters; GetAgentResult has the rest\)/);
    expect(text).toContain('GetAgentResult { "agent_id": "a" } returns the whole result.');
    expect(text).toContain("keel -r session-a (read-only)");
  });

  it("says how a child ended and labels partial work as such", () => {
    expect(resultText(result("a", "completed"), 100)).toMatch(
      /finished[\s\S]*Its final message:\nthe answer/,
    );
    expect(resultText(result("b", "interrupted"), 100)).toMatch(
      /was interrupted: Keel stopped while this agent was running\.[\s\S]*Its work so far:\nthe answer/,
    );
    expect(resultText({ ...result("c", "max_turns"), text: "" }, 100)).toMatch(
      /stopped at its turn limit \(2 turns\)[\s\S]*Its work so far: \(no text\)/,
    );
    const cut = resultText(result("d", "completed", "y".repeat(800)), 500);
    expect(cut).toMatch(/y{500}\n… \(300 more characters; the transcript has it all\)/);
  });
});
