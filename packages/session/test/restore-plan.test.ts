// The files a head move puts back, folded from the file versions T1/T2 keep; and the listing's
// message count and usage totals, which survive a reopen (and older sidecars are rebuilt).
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSession, fold, listSessions, openSession, type Session, sessionInfo } from "../src/index.js";
import { assistant, must, tempDir, toolResult, user } from "./helpers.js";

/** One Keel file-tool call: T1 with the version before, T2 with the version after, its result. */
async function edit(s: Session, id: string, path: string, before: string | null, after: string | null) {
  must(await s.appendMessage(assistant("", [{ id, name: "Edit", args: { path } }])));
  must(
    await s.appendEntry({
      type: "op_begin",
      toolCallId: id,
      toolName: "Edit",
      args: { path },
      files: [{ path, blob: before }],
    }),
  );
  must(
    await s.appendEntry({
      type: "op_end",
      toolCallId: id,
      outcome: "ok",
      ...(after === undefined ? {} : { files: [{ path, blob: after }] }),
    }),
  );
  must(await s.appendMessage(toolResult(id, "Edit")));
}

describe("restorePlan", () => {
  it("a rewind puts each file back as it was before the first change after the target", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/w" }));
    must(await s.appendMessage(user("first")));
    await edit(s, "c1", "/w/a.txt", "a0", "a1");
    const afterFirst = s.headId;
    must(await s.appendMessage(user("second")));
    await edit(s, "c2", "/w/a.txt", "a1", "a2");
    await edit(s, "c3", "/w/b.txt", null, "b1");
    must(await s.appendMessage(assistant("", [{ id: "c4", name: "Bash" }])));
    must(await s.appendEntry({ type: "op_begin", toolCallId: "c4", toolName: "Bash", args: {} }));

    const plan = must(s.restorePlan(afterFirst));
    expect(plan.files).toEqual([
      { path: "/w/a.txt", blob: "a1" },
      { path: "/w/b.txt", blob: null },
    ]);
    expect(plan.notRestored).toEqual(["Bash"]);
    expect(must(s.restorePlan(null)).files).toEqual([
      { path: "/w/a.txt", blob: "a0" },
      { path: "/w/b.txt", blob: null },
    ]);
    // Nothing to do when the target is the head.
    expect(must(s.restorePlan(s.headId)).files).toEqual([]);
  });

  it("a move to another branch undoes this one and takes what that branch's last change left", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/w" }));
    must(await s.appendMessage(user("root")));
    const root = s.headId;
    await edit(s, "x1", "/w/a.txt", "a0", "aX");
    await edit(s, "x2", "/w/c.txt", "c0", "cX");
    const branchX = s.headId;
    must(await s.branch(root));
    await edit(s, "y1", "/w/a.txt", "a0", "aY");
    await edit(s, "y2", "/w/d.txt", null, "dY");

    const toX = must(s.restorePlan(branchX));
    expect(toX.files).toEqual(
      expect.arrayContaining([
        { path: "/w/a.txt", blob: "aX" },
        { path: "/w/c.txt", blob: "cX" },
        { path: "/w/d.txt", blob: null },
      ]),
    );
    expect(toX.files).toHaveLength(3);
  });

  it("names a file whose earlier version was not kept instead of pretending to restore it", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/w" }));
    must(await s.appendMessage(user("p")));
    const before = s.headId;
    must(await s.appendMessage(assistant("", [{ id: "w1", name: "Write", args: {} }])));
    must(
      await s.appendEntry({
        type: "op_begin",
        toolCallId: "w1",
        toolName: "Write",
        args: {},
        files: [{ path: "/w/huge.bin", blob: null, skipped: "larger than 8 MB" }],
      }),
    );
    const plan = must(s.restorePlan(before));
    expect(plan).toEqual({
      files: [],
      unrestorable: [{ path: "/w/huge.bin", reason: "larger than 8 MB" }],
      notRestored: [],
    });
  });

  it("survives a reopen: the plan is folded from the file alone", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/w" }));
    must(await s.appendMessage(user("p")));
    const target = s.headId;
    await edit(s, "e1", "/w/a.txt", "v0", "v1");
    must(await s.close());
    const reopened = must(await openSession(s.path));
    expect(must(reopened.restorePlan(target)).files).toEqual([{ path: "/w/a.txt", blob: "v0" }]);
    must(await reopened.close());
  });
});

describe("thinking in model changes", () => {
  it("folds the thinking level of the latest model change on the path", async () => {
    const s = must(await createSession({ dir: tempDir(), cwd: "/w" }));
    must(await s.appendEntry({ type: "model_change", provider: "anthropic", modelId: "m" }));
    expect(s.fold().model).toEqual({ provider: "anthropic", modelId: "m" });
    must(
      await s.appendEntry({ type: "model_change", provider: "anthropic", modelId: "m", thinking: "high" }),
    );
    expect(fold(s.entries(), s.headId).model).toEqual({
      provider: "anthropic",
      modelId: "m",
      thinking: "high",
    });
  });
});

describe("listing totals", () => {
  it("counts prompts and replies and sums own and child usage on every branch, across a reopen", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/w" }));
    must(await s.appendMessage(user("one")));
    const reply = assistant("r");
    reply.usage = { ...reply.usage, input: 10, output: 5, cost: { ...reply.usage.cost, total: 0.25 } };
    must(await s.appendMessage(reply));
    must(await s.rewind(s.fold().path[0]!));
    must(await s.appendMessage(user("two")));
    must(await s.appendMessage(reply));
    must(
      await s.appendEntry({
        type: "agent_run",
        agentId: "a1",
        phase: "end",
        title: "child",
        sessionId: "c",
        outcome: {
          status: "completed",
          stopReason: "stop",
          text: "",
          turns: 1,
          usage: { ...reply.usage, cost: { ...reply.usage.cost, total: 1 } },
          durationMs: 1,
          model: "m",
        },
      }),
    );
    must(await s.close());
    const info = must(sessionInfo(s.path));
    expect(info.messageCount).toBe(4);
    expect(info.usage.input).toBe(20);
    expect(info.usage.cost.total).toBeCloseTo(0.5);
    expect(info.childUsage.cost.total).toBeCloseTo(1);
    const reopened = must(await openSession(s.path, { readOnly: true }));
    expect(reopened.listingInfo().usage.cost.total).toBeCloseTo(0.5);
    must(await reopened.close());
  });

  it("rebuilds a sidecar written before the totals existed", async () => {
    const dir = tempDir();
    const s = must(await createSession({ dir, cwd: "/w" }));
    must(await s.appendMessage(user("one")));
    must(await s.close());
    const side = `${s.path}.meta.json`;
    const old = JSON.parse(readFileSync(side, "utf8")) as Record<string, unknown>;
    delete old.messageCount;
    delete old.usage;
    delete old.childUsage;
    writeFileSync(side, JSON.stringify({ ...old, version: 1 }));
    expect(must(listSessions(dir)).sessions[0]).toMatchObject({ messageCount: 1 });
  });
});
