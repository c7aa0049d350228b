// Overflow recovery and manual compaction: an overflow error compacts and retries once; a manual
// compaction passes its instructions and updates the previous summary instead of starting over.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { continuationRequestText, SUMMARY_SYSTEM_PROMPT } from "../../src/compaction/summary.js";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

/** Enough said that a summary is smaller than what it replaces (a shorter history is not compacted). */
const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;

const isSummaryRequest = (body: Record<string, unknown>) =>
  ((body.system as { text: string }[] | undefined)?.[0]?.text ?? "").startsWith(
    SUMMARY_SYSTEM_PROMPT.slice(0, 40),
  );
const lastUserText = (body: Record<string, unknown>) => {
  const messages = body.messages as { content: string | { text?: string }[] }[];
  const content = messages.at(-1)!.content;
  return typeof content === "string" ? content : content.map((c) => c.text ?? "").join("");
};
/** A summary asked for at the end of the conversation (a manual or threshold compaction that fits). */
const isContinuedSummary = (body: Record<string, unknown>) =>
  lastUserText(body).startsWith(continuationRequestText(false).slice(0, 40));

async function agentWith(f: ReturnType<typeof faux>) {
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

describe("overflow and manual compaction", () => {
  it("compacts after a context overflow and retries the run once", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { text: `first answer${LONG}` },
        { text: "second answer" },
        { kind: "context_overflow" },
        { text: "## Goal\nAnswer questions.\n## Next steps\n- answer the third" },
        { text: "third answer after compaction" },
      ],
    });
    const agent = await agentWith(f);
    const events: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "compaction_start" || e.type === "compaction_end") events.push(`${e.type}:${e.reason}`);
    });
    await agent.prompt("one");
    await agent.prompt("two");
    const third = (await agent.prompt("three"))._unsafeUnwrap();
    await agent.close();
    expect(third.stopReason).toBe("stop");
    expect(third.text).toBe("third answer after compaction");
    expect(events).toEqual(["compaction_start:overflow", "compaction_end:overflow"]);
    expect(isSummaryRequest(f.requests[3]!.body)).toBe(true);
    // The retried request starts from the summary and still ends with the user's prompt.
    const retried = f.requests[4]!.body.messages as { content: { text: string }[] }[];
    expect(retried[0]!.content[0]!.text).toContain("compacted");
    expect(lastUserText(f.requests[4]!.body)).toBe("three");
  });

  it("passes manual instructions and updates the previous summary on the next compaction", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { text: `a1${LONG}` },
        { text: `a2${LONG}` },
        { text: "## Goal\nFirst summary goal.\n## Next steps\n- continue" },
        { text: `a3${LONG}` },
        { text: `a4${LONG}` },
        { text: "## Goal\nSecond summary goal.\n## Next steps\n- done" },
      ],
    });
    const agent = await agentWith(f);
    await agent.prompt("q1");
    await agent.prompt("q2");
    const first = await agent.compact("focus on the parser");
    expect(first.isOk()).toBe(true);
    await agent.prompt("q3");
    await agent.prompt("q4");
    const second = await agent.compact();
    expect(second.isOk()).toBe(true);
    await agent.close();

    // Both fit the window: each is asked at the end of the conversation as last sent.
    const summaryRequests = f.requests.filter((r) => isContinuedSummary(r.body));
    expect(summaryRequests).toHaveLength(2);
    expect(f.requests.filter((r) => isSummaryRequest(r.body))).toHaveLength(0);
    expect(lastUserText(summaryRequests[0]!.body)).toContain("Focus: focus on the parser");
    const update = summaryRequests[1]!;
    // The second updates the first: the conversation it ends opens with the first summary, and
    // the ask says to update it.
    expect(lastUserText(update.body)).toContain("update that summary");
    const opening = JSON.stringify((update.body.messages as unknown[])[0]);
    expect(opening).toContain("First summary goal.");
    expect(update.raw).not.toContain('"q1"'); // already summarized, not re-sent as conversation
    expect(update.raw).toContain('"q4"');
  });

  it("after an overflow, updates the previous summary from a transcript of what came since", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { text: `a1${LONG}` },
        { text: `a2${LONG}` },
        { text: "## Goal\nFirst summary goal.\n## Next steps\n- continue" },
        { text: `a3${LONG}` },
        { kind: "context_overflow" },
        { text: "## Goal\nSecond summary goal.\n## Next steps\n- done" },
        { text: "a4" },
      ],
    });
    const agent = await agentWith(f);
    await agent.prompt("q1");
    await agent.prompt("q2");
    expect((await agent.compact()).isOk()).toBe(true);
    await agent.prompt("q3");
    const fourth = (await agent.prompt("q4"))._unsafeUnwrap();
    await agent.close();
    expect(fourth.text).toBe("a4");

    const own = f.requests.filter((r) => isSummaryRequest(r.body));
    expect(own).toHaveLength(1);
    const update = lastUserText(own[0]!.body);
    expect(update).toContain("<previous-summary>");
    expect(update).toContain("First summary goal.");
    // The part kept at the first compaction and summarized now (the cut leaves q3 onwards).
    expect(update).toContain("<new-conversation>\n[user]\nq2");
    expect(update).not.toContain("q1"); // already summarized, not re-sent as conversation
  });

  it("a short conversation is not compacted: it says so, asks no model and journals nothing", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "Hello there." }] });
    const agent = await agentWith(f);
    const events: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "compaction_start" || e.type === "compaction_end") events.push(e.type);
    });
    await agent.prompt("hello");
    const before = agent.contextUsage().tokens;
    const compacted = await agent.compact();
    const file = agent.sessionFile!;
    const after = agent.contextUsage().tokens;
    await agent.close();
    expect(compacted._unsafeUnwrapErr()).toEqual({
      type: "nothing_to_compact",
      message: expect.stringMatching(/^Nothing to compact: the conversation is too short/),
    });
    expect(f.requests).toHaveLength(1);
    expect(events).toEqual([]);
    expect(after).toBe(before);
    expect(readFileSync(file, "utf8")).not.toContain('"type":"compaction"');
  });

  it("a summary no smaller than what it replaces is not journaled, and its cost is still counted", async () => {
    box = sandbox();
    const bloated = `## Goal\n${"An overly long summary line. ".repeat(80)}`;
    const f = faux({
      turns: [
        { text: `a1${LONG}` },
        { text: `a2${LONG}` },
        { text: bloated, usage: { input: 10, output: 777 } },
        { text: "a3" },
      ],
    });
    const agent = await agentWith(f);
    const ends: { ok: boolean; error?: string }[] = [];
    agent.subscribe((e) => {
      if (e.type === "compaction_end") ends.push({ ok: e.ok, ...(e.error ? { error: e.error } : {}) });
    });
    await agent.prompt("q1");
    await agent.prompt("q2");
    const outputBefore = agent.usage().output;
    const compacted = await agent.compact();
    expect(compacted._unsafeUnwrapErr().type).toBe("nothing_to_compact");
    expect(compacted._unsafeUnwrapErr().message).toMatch(
      /^Nothing compacted: the summary \(~\d+ tokens\) would be no smaller than the ~\d+ tokens of conversation it replaces/,
    );
    expect(ends).toEqual([{ ok: false, error: compacted._unsafeUnwrapErr().message }]);
    expect(agent.usage().output - outputBefore).toBe(777);
    await agent.prompt("q3");
    const file = agent.sessionFile!;
    await agent.close();
    // The next request still carries the conversation itself, not the bloated summary.
    const next = f.requests.at(-1)!.raw;
    expect(next).toContain('"q1"');
    expect(next).not.toContain("An overly long summary line.");
    expect(readFileSync(file, "utf8")).not.toContain('"type":"compaction"');
  });
});
