// The transcript fold (events → printed items + live tail) and the dialog keys, without a terminal.
import { type AssistantMessage, emptyUsage } from "@keel/ai";
import type { ApprovalAnswer, CodingAgentEvent, ToolApprovalRequest } from "@keel/coding-agent";
import { describe, expect, it } from "vitest";
import { approvalChoices, dialogKey } from "../src/tui/dialog-keys.js";
import type { Dialog } from "../src/tui/store.js";
import { Transcript } from "../src/tui/transcript.js";

const usage = emptyUsage();

function assistant(content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage,
    stopReason: "stop",
    timestamp: 0,
  };
}

const textDelta = (text: string): CodingAgentEvent => {
  const message = assistant([{ type: "text", text }]);
  return {
    type: "message_update",
    message,
    event: { type: "text_delta", contentIndex: 0, delta: "", partial: message },
  };
};

describe("Transcript", () => {
  it("prints finished paragraphs once and keeps only the streaming tail live", () => {
    const t = new Transcript();
    t.apply({ type: "message_start", message: assistant([]) });
    expect(t.apply(textDelta("First para"))).toBe("delta");
    expect(t.done).toEqual([]);
    expect(t.live().text).toBe("First para");
    expect(t.apply(textDelta("First para.\n\nSecond"))).toBe("structural");
    expect(t.done.map((i) => (i.kind === "text" ? i.text : ""))).toEqual(["First para."]);
    expect(t.live().text).toBe("Second");
    const final = assistant([{ type: "text", text: "First para.\n\nSecond one." }]);
    t.apply({ type: "message_end", message: final });
    expect(t.done.map((i) => (i.kind === "text" ? i.text : ""))).toEqual(["First para.", "Second one."]);
    expect(t.live().text).toBe("");
  });

  it("shows the notes a model writes into thinking before a tool call as text (Sonnet 5.5), other thinking as one line", () => {
    const t = new Transcript();
    t.notesInThinking = true;
    const update = (
      content: AssistantMessage["content"],
      index: number,
      type: "thinking_end" | "toolcall_start",
    ) => {
      const message = assistant(content);
      const event =
        type === "thinking_end"
          ? { type, contentIndex: index, content: "", partial: message }
          : { type, contentIndex: index, partial: message };
      t.apply({ type: "message_update", message, event } as CodingAgentEvent);
    };
    const reasoning = { type: "thinking" as const, thinking: "Plan the fix.", signature: "s1" };
    const note = { type: "thinking" as const, thinking: "Reading a.ts first.", signature: "s2" };
    const call = { type: "toolCall" as const, id: "t1", name: "Read", arguments: { path: "a.ts" } };
    t.apply({ type: "message_start", message: assistant([]) });
    update([reasoning, note], 1, "thinking_end");
    // The note's block ended, but whether a tool call follows is not known yet.
    expect(t.done.map((i) => i.kind)).toEqual(["thinking"]);
    update([reasoning, note, call], 2, "toolcall_start");
    t.apply({ type: "message_end", message: assistant([reasoning, note, call]) });
    expect(t.done.map((i) => (i.kind === "text" ? `text:${i.text}` : i.kind))).toEqual([
      "thinking",
      "text:Reading a.ts first.",
    ]);
    // Without the flag (other models), the same blocks stay one thinking line each.
    const plain = new Transcript();
    plain.apply({ type: "message_end", message: assistant([reasoning, note, call]) });
    expect(plain.done.map((i) => i.kind)).toEqual(["thinking", "thinking"]);
    // Replay on resume shows the note too.
    const resumed = new Transcript();
    resumed.notesInThinking = true;
    resumed.replay([{ kind: "conversation", message: assistant([reasoning, note, call]) }]);
    expect(resumed.done.map((i) => (i.kind === "text" ? i.text : i.kind))).toEqual([
      "Reading a.ts first.",
      "tool",
    ]);
  });

  it("collapses thinking to one line once the answer starts", () => {
    const t = new Transcript();
    const thinking = assistant([{ type: "thinking", thinking: "hmm, let me see" }]);
    t.apply({
      type: "message_update",
      message: thinking,
      event: { type: "thinking_delta", contentIndex: 0, delta: "", partial: thinking },
    });
    expect(t.live().thinking).toBe(true);
    const both = assistant([
      { type: "thinking", thinking: "hmm, let me see" },
      { type: "text", text: "Answer" },
    ]);
    t.apply({
      type: "message_update",
      message: both,
      event: { type: "text_delta", contentIndex: 1, delta: "", partial: both },
    });
    expect(t.done).toEqual([{ kind: "thinking", id: 1, chars: 15 }]);
    expect(t.live()).toMatchObject({ thinking: false, text: "Answer" });
  });

  it("prints tools in start order, holding finished ones behind a running one", () => {
    const t = new Transcript();
    const start = (id: string): CodingAgentEvent => ({
      type: "tool_start",
      toolCallId: id,
      toolName: "Bash",
      args: { command: id },
      summary: id,
      access: "exec",
    });
    t.apply(start("a"));
    t.apply(start("b"));
    t.apply({ type: "tool_end", toolCallId: "b", toolName: "Bash", isError: false, text: "ok" });
    expect(t.done).toEqual([]);
    expect(t.live().tools.map((x) => x.state)).toEqual(["running", "ok"]);
    t.apply({ type: "tool_end", toolCallId: "a", toolName: "Bash", isError: true, text: "boom" });
    expect(t.done.map((i) => (i.kind === "tool" ? `${i.toolCallId}:${i.state}` : ""))).toEqual([
      "a:error",
      "b:ok",
    ]);
    expect(t.lastTool?.toolCallId).toBe("a");
  });

  it("turns run ends, diagnostics and compaction into notices", () => {
    const t = new Transcript();
    t.apply({
      type: "run_end",
      summary: {
        stopReason: "aborted",
        turns: 1,
        usage,
        text: "",
        durationMs: 1,
        unsent: [],
        permissionDenials: [],
      },
    });
    t.apply({ type: "diagnostic", diagnostic: { extensionId: "mcp", level: "warning", message: "down" } });
    t.apply({ type: "compaction_end", reason: "manual", tokensBefore: 900, tokensAfter: 100, ok: true });
    expect(t.done.map((i) => (i.kind === "notice" ? `${i.level}:${i.text}` : ""))).toEqual([
      "warning:Interrupted.",
      "warning:mcp: down",
      "success:Compacted ~900 → ~100 tokens.",
    ]);
  });

  it("replays a resumed history with one line per tool call", () => {
    const t = new Transcript();
    t.replay(
      [
        { role: "user" as const, content: "do it", timestamp: 0 },
        assistant([{ type: "toolCall", id: "c1", name: "Read", arguments: { path: "a.ts" } }]),
        {
          role: "toolResult" as const,
          toolCallId: "c1",
          toolName: "Read",
          content: [{ type: "text" as const, text: "1: x" }],
          isError: false,
          timestamp: 0,
        },
        assistant([{ type: "text", text: "Done." }]),
      ].map((message) => ({ kind: "conversation" as const, message })),
    );
    expect(t.done.map((i) => i.kind)).toEqual(["user", "tool", "text"]);
    expect(t.done[1]).toMatchObject({ state: "ok", output: "1: x" });
  });
});

describe("dialog keys", () => {
  const request: ToolApprovalRequest = {
    toolName: "Bash",
    toolCallId: "t",
    args: { command: "rm x" },
    reason: "r",
    kind: "tool",
    alwaysRules: ["Bash(rm x)"],
  };

  function approval(answers: string[], selected = 0): Dialog {
    return { id: 1, kind: "approval", request, selected, scroll: 0, answer: (a) => answers.push(a.decision) };
  }

  it("scrolls a long preview no further than its end, so ↑ moves at once coming back", () => {
    const long: Dialog = {
      id: 2,
      kind: "approval",
      request: {
        ...request,
        preview: { format: "diff", text: Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") },
      },
      selected: 0,
      scroll: 0,
      answer: () => {},
    };
    // A 24-row terminal shows 8 preview rows: the last start is line 22.
    let d: Dialog = long;
    for (let i = 0; i < 5; i++) {
      const step = dialogKey(d, "", { pageDown: true }, 24);
      if (step.type !== "move") throw new Error("expected a move");
      d = step.dialog;
    }
    expect(d.kind === "approval" && d.scroll).toBe(22);
    const up = dialogKey(d, "", { upArrow: true }, 24);
    expect(up.type === "move" && up.dialog.kind === "approval" && up.dialog.scroll).toBe(21);
    // Without a preview nothing scrolls.
    const plain = dialogKey(approval([]), "", { downArrow: true }, 24);
    expect(plain.type === "move" && plain.dialog.kind === "approval" && plain.dialog.scroll).toBe(0);
  });

  it("answers with y / a / n and Esc, and Enter takes the selected choice", () => {
    for (const [input, key, expected] of [
      ["y", {}, "allow_once"],
      ["a", {}, "allow_always"],
      ["n", {}, "deny"],
      ["", { escape: true }, "deny"],
    ] as const) {
      const answers: string[] = [];
      const step = dialogKey(approval(answers), input, key);
      expect(step.type).toBe("answer");
      if (step.type === "answer") step.resolve();
      expect(answers).toEqual([expected]);
    }
    const answers: string[] = [];
    const moved = dialogKey(approval(answers), "", { rightArrow: true });
    expect(moved.type === "move" && moved.dialog.kind === "approval" && moved.dialog.selected).toBe(1);
    const step = dialogKey(approval(answers, 2), "\r", { return: true });
    if (step.type === "answer") step.resolve();
    expect(answers).toEqual(["deny"]);
  });

  it("denies and stops by default; t takes words for the model (Enter stops, Alt+Enter lets it go on)", () => {
    const got: ApprovalAnswer[] = [];
    const dialog: Dialog = {
      id: 1,
      kind: "approval",
      request,
      selected: 0,
      scroll: 0,
      answer: (a) => got.push(a),
    };
    const no = dialogKey(dialog, "n", {});
    if (no.type === "answer") no.resolve();
    expect(got.pop()).toEqual({ decision: "deny", stopRun: true });

    let step = dialogKey(dialog, "t", {});
    expect(step.type === "move" && step.dialog.kind === "approval" && step.dialog.reason).toEqual({
      text: "",
      cursor: 0,
    });
    let open = step.type === "move" ? step.dialog : dialog;
    // Letters typed now are the reason, not answers ("y" does not allow).
    for (const ch of "use yarn") {
      step = dialogKey(open, ch, {});
      if (step.type === "move") open = step.dialog;
    }
    expect(open.kind === "approval" && open.reason?.text).toBe("use yarn");
    const stop = dialogKey(open, "\r", { return: true });
    if (stop.type === "answer") stop.resolve();
    expect(got.pop()).toEqual({ decision: "deny", reason: "use yarn", stopRun: true });
    const goOn = dialogKey(open, "\r", { return: true, meta: true });
    if (goOn.type === "answer") goOn.resolve();
    expect(got.pop()).toEqual({ decision: "deny", reason: "use yarn" });
  });

  it("offers one always choice per rule, narrowest first, and scrolls a long preview", () => {
    const wide: ToolApprovalRequest = {
      ...request,
      alwaysRules: ["Bash(npm test)", "Bash(npm test:*)"],
      preview: { format: "command", text: Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") },
    };
    expect(approvalChoices(wide).map((c) => c.key)).toEqual(["y", "a", "2", "n", "t"]);
    const got: ApprovalAnswer[] = [];
    const dialog: Dialog = {
      id: 1,
      kind: "approval",
      request: wide,
      selected: 0,
      scroll: 0,
      answer: (a) => got.push(a),
    };
    const second = dialogKey(dialog, "2", {});
    if (second.type === "answer") second.resolve();
    expect(got).toEqual([{ decision: "allow_always", rule: "Bash(npm test:*)" }]);
    const down = dialogKey(dialog, "", { pageDown: true }, 24);
    expect(down.type === "move" && down.dialog.kind === "approval" && down.dialog.scroll).toBe(10);
  });

  it("moves a picker with wrap-around and cancels with Esc", () => {
    const picked: (number | undefined)[] = [];
    const dialog: Dialog = {
      id: 2,
      kind: "select",
      title: "t",
      options: [{ label: "a" }, { label: "b" }],
      selected: 0,
      filter: "",
      answer: (i) => picked.push(i),
    };
    const up = dialogKey(dialog, "", { upArrow: true });
    expect(up.type === "move" && up.dialog.kind === "select" && up.dialog.selected).toBe(1);
    const esc = dialogKey(dialog, "", { escape: true });
    if (esc.type === "answer") esc.resolve();
    expect(picked).toEqual([undefined]);
  });
});
