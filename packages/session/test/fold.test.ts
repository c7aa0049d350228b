// The pure fold: compaction, told inventory, recovery classification, checkpoint restore.
import { copyFileSync } from "node:fs";
import type { AssistantMessage, Message } from "@keel/protocol";
import { describe, expect, it } from "vitest";
import {
  createSession,
  fold,
  type NewEntry,
  openSession,
  recoveryMessage,
  recoveryToolResults,
  type SessionEntry,
} from "../src/index.js";
import { assistant, must, tempDir, toolResult, user } from "./helpers.js";

/** Builds a linear journal by hand: each entry hangs off the previous one. */
function chain(...data: NewEntry[]): SessionEntry[] {
  const out: SessionEntry[] = [];
  data.forEach((d, i) => {
    out.push({
      ...d,
      id: `e${i}`,
      parentId: i === 0 ? null : `e${i - 1}`,
      timestamp: "2025-01-01T00:00:00.000Z",
    } as SessionEntry);
  });
  return out;
}

const msg = (message: Message): NewEntry => ({ type: "message", message });

describe("fold", () => {
  it("is pure: same input, same output, input untouched", () => {
    const entries = chain(msg(user("a")), msg(assistant("b")));
    const snapshot = JSON.stringify(entries);
    expect(fold(entries, "e1")).toEqual(fold(entries, "e1"));
    expect(JSON.stringify(entries)).toBe(snapshot);
    expect(fold(entries, null)).toMatchObject({ headId: null, path: [], messages: [] });
  });

  it("applies the last compaction: summary, then entries from firstKeptEntryId on", () => {
    const entries = chain(
      msg(user("old 1")),
      msg(assistant("old 2")),
      msg(user("kept 3")),
      msg(assistant("kept 4")),
      { type: "compaction", summary: "S1", firstKeptEntryId: "e2", tokensBefore: 1000, reason: "threshold" },
      msg(user("after 6")),
    );
    const f = fold(entries, "e5");
    expect(f.messageSources).toEqual(["e4", "e2", "e3", "e5"]);
    expect(JSON.stringify(f.messages[0]!.content)).toContain("S1");
    expect(f.lastCompactionId).toBe("e4");
    expect(f.path).toEqual(["e0", "e1", "e2", "e3", "e4", "e5"]);
    // A second compaction may keep the first one's summary or drop it.
    const twice = [
      ...entries,
      ...chain(msg(user("x")), {
        type: "compaction",
        summary: "S2",
        firstKeptEntryId: "e5",
        tokensBefore: 9,
        reason: "manual",
      }).map((e, i) => ({ ...e, id: `f${i}`, parentId: i === 0 ? "e5" : `f${i - 1}` }) as SessionEntry),
    ];
    expect(fold(twice, "f1").messageSources).toEqual(["f1", "e5", "f0"]);
  });

  it("warns (never silently) when firstKeptEntryId is not on the path", () => {
    const entries = chain(msg(user("a")), {
      type: "compaction",
      summary: "S",
      firstKeptEntryId: "elsewhere",
      tokensBefore: 1,
      reason: "r",
    });
    const f = fold(entries, "e1");
    expect(f.messageSources).toEqual(["e1"]);
    expect(f.warnings).toEqual([
      { type: "first_kept_not_found", compactionId: "e1", firstKeptEntryId: "elsewhere" },
    ]);
  });

  it("keeps the latest app_state per extension on the branch only", () => {
    const entries = chain(
      { type: "app_state", extensionId: "todo", state: 1 },
      { type: "app_state", extensionId: "notes", state: "n" },
      { type: "app_state", extensionId: "todo", state: 2 },
    );
    entries.push({
      type: "app_state",
      extensionId: "todo",
      state: 99,
      id: "side",
      parentId: "e0",
      timestamp: "",
    });
    expect(fold(entries, "e2").extensionStates).toEqual({ todo: 2, notes: "n" });
    expect(fold(entries, "side").extensionStates).toEqual({ todo: 99 });
  });

  it("folds an extension's persisted notice into the context on its branch only", () => {
    const notice = { role: "user" as const, content: "agent a1 finished", timestamp: 1 };
    const entries = chain(
      msg(user("hi")),
      { type: "notice", source: "subagent", message: notice },
      msg(user("next")),
    );
    entries.push({ ...msg(user("other")), id: "side", parentId: "e0", timestamp: "" } as SessionEntry);
    expect(fold(entries, "e2").messages.map((m) => m.content)).toEqual(["hi", "agent a1 finished", "next"]);
    expect(fold(entries, "e2").messageSources).toEqual(["e0", "e1", "e2"]);
    expect(fold(entries, "side").messages.map((m) => m.content)).toEqual(["hi", "other"]);
  });

  it("folds the keys of keyed notices on the path, compacted ones included, by source", () => {
    const notice = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
    const entries = chain(
      msg(user("hi")),
      { type: "notice", source: "subagent", message: notice("a1 done"), key: "agent:a1" },
      { type: "notice", source: "other", message: notice("unkeyed") },
      msg(user("next")),
      { type: "compaction", summary: "s", firstKeptEntryId: "e3", tokensBefore: 10, reason: "manual" },
      { type: "notice", source: "subagent", message: notice("a2 done"), key: "agent:a2" },
    );
    entries.push({ ...msg(user("other")), id: "side", parentId: "e0", timestamp: "" } as SessionEntry);
    // The first notice was summarized away, but it was delivered on this branch all the same.
    expect(fold(entries, "e5").noticeKeys).toEqual({ subagent: ["agent:a1", "agent:a2"] });
    expect(fold(entries, "e5").messages.map((m) => m.content)).not.toContain("a1 done");
    expect(fold(entries, "side").noticeKeys).toEqual({});
  });

  it("folds child agents session-wide: started, then how each ended, whatever the head", () => {
    const outcome = {
      status: "completed" as const,
      stopReason: "stop",
      text: "done",
      turns: 2,
      usage: assistant("x").usage,
      durationMs: 10,
      model: "m/x",
    };
    const entries = chain(
      msg(user("hi")),
      {
        type: "agent_run",
        agentId: "a1",
        phase: "start",
        title: "review",
        sessionId: "s1",
        toolCallId: "t1",
      },
      { type: "agent_run", agentId: "a2", phase: "start", title: "explore", sessionId: "s2" },
      { type: "agent_run", agentId: "a1", phase: "end", title: "review", sessionId: "s1", outcome },
    );
    const folded = fold(entries, "e0");
    expect(Object.keys(folded.agents)).toEqual(["a1", "a2"]);
    expect(folded.agents.a1).toMatchObject({ title: "review", sessionId: "s1", toolCallId: "t1", outcome });
    expect(folded.agents.a2?.outcome).toBeUndefined();
    // Meta entries: the context is untouched.
    expect(folded.messages).toHaveLength(1);
  });

  it("folds the told capability inventory from notices still in context", () => {
    const notice = (
      inventory: Record<string, { name: string; digest: string }[]>,
      text: string,
    ): NewEntry => ({
      type: "capability_notice",
      source: Object.keys(inventory)[0]!,
      inventory,
      message: user(text),
    });
    const entries = chain(
      notice({ mcp: [{ name: "a", digest: "1" }] }, "Added a"),
      notice({ skills: [{ name: "s", digest: "x" }] }, "Added s"),
      msg(user("work")),
      notice(
        {
          mcp: [
            { name: "a", digest: "2" },
            { name: "b", digest: "1" },
          ],
        },
        "Updated a, added b",
      ),
      notice({ skills: [] }, "Removed s"),
    );
    const f = fold(entries, "e4");
    expect(f.toldInventory).toEqual({
      mcp: [
        { name: "a", digest: "2" },
        { name: "b", digest: "1" },
      ],
    });
    expect(f.messages.map((m) => m.content)).toContain("Updated a, added b");
    expect(fold(entries, "e1").toldInventory).toEqual({
      mcp: [{ name: "a", digest: "1" }],
      skills: [{ name: "s", digest: "x" }],
    });
    // After a compaction nothing counts as told, not even kept notices: a kept diff notice's base
    // may have been summarized away, so the model must be told the whole inventory again.
    const compaction = {
      type: "compaction",
      summary: "S",
      firstKeptEntryId: "e3",
      tokensBefore: 1,
      reason: "r",
      id: "c",
      parentId: "e4",
      timestamp: "",
    } as SessionEntry;
    const compacted = [...entries, compaction];
    expect(fold(compacted, "c").messages.map((m) => m.content)).toContain("Updated a, added b");
    expect(fold(compacted, "c").toldInventory).toEqual({});
    const retold = [
      ...compacted,
      {
        type: "capability_notice",
        source: "mcp",
        inventory: { mcp: [{ name: "a", digest: "2" }] },
        message: user("Tools: a"),
        id: "n",
        parentId: "c",
        timestamp: "",
      },
    ] as SessionEntry[];
    expect(fold(retold, "n").toldInventory).toEqual({ mcp: [{ name: "a", digest: "2" }] });
  });

  it("reports dangling parents as warnings", () => {
    const entries = [
      { type: "message", id: "x", parentId: "gone", timestamp: "", message: user("orphan") },
    ] as SessionEntry[];
    const f = fold(entries, "x");
    expect(f.path).toEqual(["x"]);
    expect(f.warnings).toEqual([{ type: "dangling_parent", entryId: "x", parentId: "gone" }]);
  });
});

describe("recovery classification", () => {
  const calls = [
    { id: "t1", name: "Write", args: { path: "a" } },
    { id: "t2", name: "Bash", args: { command: "make" } },
    { id: "t3", name: "Edit" },
    { id: "t4", name: "Read" },
  ];
  const entries = chain(
    msg(user("go")),
    msg(assistant("working", calls)),
    { type: "op_begin", toolCallId: "t4", toolName: "Read", args: {} },
    { type: "op_end", toolCallId: "t4", outcome: "ok" },
    msg(toolResult("t4", "Read")),
    { type: "op_begin", toolCallId: "t1", toolName: "Write", args: { path: "a" } },
    { type: "op_end", toolCallId: "t1", outcome: "error", summary: "disk full" },
    { type: "op_begin", toolCallId: "t2", toolName: "Bash", args: { command: "make" } },
  );

  it("no T1 → never_ran; T1 without T2 → unknown_outcome; T1+T2 without result → result_missing", () => {
    expect(fold(entries, "e7").recovery).toEqual([
      { kind: "result_missing", toolCallId: "t1", toolName: "Write", outcome: "error", summary: "disk full" },
      { kind: "unknown_outcome", toolCallId: "t2", toolName: "Bash", args: { command: "make" } },
      { kind: "never_ran", toolCallId: "t3", toolName: "Edit" },
    ]);
  });

  it("is relative to the head: earlier on the branch the same calls classify differently", () => {
    expect(fold(entries, "e1").recovery.map((a) => a.kind)).toEqual([
      "never_ran",
      "never_ran",
      "never_ran",
      "never_ran",
    ]);
    expect(fold(entries, "e0").recovery).toEqual([]);
  });

  it("is resolved by appending the tool results it proposes", () => {
    const actions = fold(entries, "e7").recovery;
    const results = recoveryToolResults(actions, 5);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["t1", true],
      ["t2", true],
      ["t3", true],
    ]);
    const resolved = [...entries];
    results.forEach((r, i) => {
      resolved.push({
        type: "message",
        message: r,
        id: `r${i}`,
        parentId: i === 0 ? "e7" : `r${i - 1}`,
        timestamp: "",
      });
    });
    expect(fold(resolved, "r2").recovery).toEqual([]);
  });

  it("a failed or aborted reply's calls never ran by design: nothing to recover, no crash to report", () => {
    for (const stopReason of ["error", "aborted", "context_overflow"] as const) {
      const failed: AssistantMessage = {
        ...assistant("half", [{ id: "x1", name: "Write", args: { path: "a" } }]),
        stopReason,
        error: { type: "protocol", message: "The stream ended before the provider finished the message." },
      };
      const journal = chain(msg(user("go")), msg(failed));
      expect(fold(journal, "e1").recovery).toEqual([]);
      expect(recoveryMessage(fold(journal, "e1").recovery)).toBe("");
    }
  });

  it("recoveryMessage tells the model and the user what to verify", () => {
    const text = recoveryMessage(fold(entries, "e7").recovery);
    expect(text).toContain("Bash (call t2) started but did not report an outcome");
    expect(text).toContain("check the current state");
    expect(text).toContain("Edit (call t3) never started");
    expect(text).toContain("disk full");
    expect(recoveryMessage([])).toBe("");
  });
});

describe("streaming checkpoints", () => {
  function partial(text: string, withCall = false): AssistantMessage {
    const m = assistant(text, withCall ? [{ id: "half", name: "Write", args: { path: "x" } }] : []);
    return { ...m, stopReason: "stop" };
  }

  it("restores the last checkpoint after a crash as an aborted message, without half tool calls", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/", checkpointIntervalMs: 0 }));
    must(await s.appendMessage(user("write me a poem")));
    s.checkpoint(partial("Roses"));
    s.checkpoint(partial("Roses are"));
    s.checkpoint(partial("Roses are red", true));
    expect(s.entries().filter((e) => e.type === "checkpoint")).toHaveLength(3);
    // Crash: the file as it is now, without close().
    const crashed = `${dir}/crashed.jsonl`;
    copyFileSync(s.path, crashed);

    const again = must(await openSession(crashed));
    const f = again.fold();
    const restored = f.messages[1] as AssistantMessage;
    expect(restored).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
      content: [{ type: "text", text: "Roses are red" }],
    });
    expect(f.recovery).toEqual([
      { kind: "interrupted_message", checkpointId: f.messageSources[1], message: restored },
    ]);
    expect(recoveryMessage(f.recovery)).toContain("cut off");
    // Keeping it for good: append it; the checkpoint is then superseded.
    must(await again.appendMessage(restored));
    expect(again.fold().recovery).toEqual([]);
    expect(again.context()).toHaveLength(2);
    must(await again.close());
    must(await s.close());
  });

  it("the final message supersedes its checkpoints", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/", checkpointIntervalMs: 0 }));
    must(await s.appendMessage(user("hi")));
    s.checkpoint(partial("He"));
    must(await s.appendMessage(assistant("Hello")));
    must(await s.close());
    const again = must(await openSession(s.path));
    expect(again.fold().recovery).toEqual([]);
    expect(again.context().map((m) => m.role)).toEqual(["user", "assistant"]);
    must(await again.close());
  });

  it("writes at most one checkpoint per interval, the latest, and drops a pending one when the message lands", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/", checkpointIntervalMs: 60_000 }));
    must(await s.appendMessage(user("hi")));
    for (let i = 1; i <= 50; i++) s.checkpoint(partial("x".repeat(i)));
    const written = s.entries().filter((e) => e.type === "checkpoint");
    expect(written).toHaveLength(1);
    expect((written[0] as { message: AssistantMessage }).message.content[0]).toEqual({
      type: "text",
      text: "x",
    });
    must(await s.appendMessage(assistant("done")));
    must(await s.close());
    expect(s.entries().filter((e) => e.type === "checkpoint")).toHaveLength(1);
  });

  it("flushes the latest pending checkpoint when the interval elapses", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/", checkpointIntervalMs: 20 }));
    must(await s.appendMessage(user("hi")));
    s.checkpoint(partial("a"));
    s.checkpoint(partial("ab"));
    s.checkpoint(partial("abc"));
    await expect
      .poll(() => s.entries().filter((e) => e.type === "checkpoint").length, { timeout: 5000 })
      .toBe(2);
    const last = s.entries()[s.entries().length - 1] as { message: AssistantMessage };
    expect(last.message.content[0]).toEqual({ type: "text", text: "abc" });
    must(await s.close());
  });
});
