// The prompt cache at its edges, measured at the wire: a session resumed after midnight keeps its
// system prompt (the date is the session's, journaled; the new date comes as a notice appended);
// a turn with 12 parallel tool calls keeps a marker on the previous request's last message, within
// the API's lookback; a compaction asks for its summary at the end of the conversation as last sent
// (same system prompt, tools and markers) unless that would not fit; and what the vendor SDK would
// print lands in the debug log. Each: the bytes already sent stay a prefix, markers kept.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheLines, historyBreakpoints, type RecordedRequest, stripCacheControl } from "@keel/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  box?.cleanup();
});

type Json = Record<string, unknown>;

/** Enough said that a summary is smaller than what it replaces (a shorter history is not compacted). */
const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;
const messagesOf = (r: RecordedRequest) =>
  (JSON.parse(r.raw) as Json).messages as { role: string; content: Json[] }[];

/** Every marker of `before` is on the same block of `after`, the block unchanged. */
function markersKept(before: RecordedRequest, after: RecordedRequest): void {
  const later = messagesOf(after);
  for (const mark of historyBreakpoints(before)) {
    const same = later[mark.message]?.content?.[mark.block];
    expect(stripCacheControl(same), `block ${mark.message}.${mark.block}`).toEqual(
      stripCacheControl(mark.value),
    );
  }
}

/** The first request's lines (its one-request reminder dropped) open the second's. */
function isPrefix(before: RecordedRequest, after: RecordedRequest): void {
  const a = cacheLines(before, { dropReminder: true });
  const b = cacheLines(after);
  expect(b.slice(0, a.length)).toEqual(a);
}

describe("the date across midnight", () => {
  it("resumes with the session's date in the system prompt and tells the new date by a notice", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "first answer" }, { text: "second answer" }] });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-01T23:58:00Z"));
    const options = {
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      discoverExtensions: false,
    };
    const first = (await createCodingAgent(options))._unsafeUnwrap();
    await first.prompt("Before midnight.");
    const file = first.sessionFile!;
    await first.close();
    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as Json;
    expect(header.environment).toEqual({
      date: "2026-12-01",
      platform: `${process.platform} ${process.arch}`,
    });

    vi.setSystemTime(new Date("2026-12-02T00:01:00Z"));
    const second = (await createCodingAgent({ ...options, session: { mode: "continue" } }))._unsafeUnwrap();
    await second.prompt("After midnight.");
    await second.close();

    const [before, after] = f.requests as [RecordedRequest, RecordedRequest];
    expect((after.body.system as Json[])[0]!.text).toContain("Date: 2026-12-01");
    isPrefix(before, after);
    markersKept(before, after);
    // The new date reached the model by appending, after everything already sent.
    const appended = messagesOf(after)
      .slice(messagesOf(before).length)
      .map((m) => JSON.stringify(m));
    expect(appended.join("\n")).toContain("Today's date is 2026-12-02 (this session began on 2026-12-01).");
  });
});

describe("a turn with 12 parallel tool calls", () => {
  it("keeps a marker on the previous request's last message, which the last marker's lookback could not reach", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "alpha\n");
    const calls = Array.from({ length: 12 }, (_, i) => ({
      id: `toolu_${i}`,
      name: "Read",
      arguments: { path: "a.txt" },
    }));
    const f = faux({ turns: [{ toolCalls: calls }, { text: "read them all" }, { text: "ok" }] });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        permissionMode: "bypassPermissions",
        discoverExtensions: false,
      })
    )._unsafeUnwrap();
    await agent.prompt("Read a.txt twelve times.");
    await agent.prompt("And now?");
    await agent.close();
    const [one, two, three] = f.requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    // Request 2: its history marker on the tool results, and one on request 1's last message.
    expect(historyBreakpoints(two).map((m) => [m.message, m.block])).toEqual([
      [0, 0],
      [2, 11],
    ]);
    // 24 blocks lie between them: more than the ~20 a lookup reads back from the last marker.
    const blocksAfterFirst = messagesOf(two)
      .slice(1)
      .reduce((n, m) => n + m.content.length, 0);
    expect(blocksAfterFirst).toBeGreaterThan(20);
    isPrefix(one, two);
    markersKept(one, two);
    isPrefix(two, three);
    markersKept(two, three);
    // Never more than the API's four markers (system, tools, two in the history).
    for (const r of f.requests) expect(r.raw.match(/"cache_control"/g)?.length ?? 0).toBeLessThanOrEqual(4);
  });
});

describe("compaction", () => {
  const run = async (overrides: { contextWindow?: number; maxOutput?: number } = {}, long = "") => {
    box = sandbox();
    const f = faux(
      {
        turns: [
          { text: `one${LONG}` },
          { text: "two" },
          { text: "## Goal\nkeep going", usage: { input: 50, output: 20, cacheRead: 900 } },
        ],
      },
      overrides,
    );
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        discoverExtensions: false,
      })
    )._unsafeUnwrap();
    await agent.prompt(`First.${LONG}${long}`);
    await agent.prompt("Second.");
    const compacted = await agent.compact();
    const usage = agent.usage();
    await agent.close();
    return { requests: f.requests as RecordedRequest[], compacted, usage };
  };

  it("asks for the summary at the end of the conversation as last sent, so its cached prefix serves it", async () => {
    const { requests, compacted, usage } = await run();
    expect(compacted.isOk()).toBe(true);
    const [, last, summary] = requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    // Same system prompt and tools, the conversation as sent, then the reply and the ask.
    expect([summary.body.system, summary.body.tools].map(stripCacheControl)).toEqual(
      [last.body.system, last.body.tools].map(stripCacheControl),
    );
    isPrefix(last, summary);
    markersKept(last, summary);
    const ask = JSON.stringify(messagesOf(summary).at(-1));
    expect(ask).toContain("This conversation is about to be compacted");
    // The summary request's cost is the session's: its cache read is in the totals.
    expect(usage.cacheRead).toBe(900);
  });

  it("falls back to a request of its own when the continued summary is cut at the output cap", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { text: `one${LONG}` },
        { text: "two" },
        { text: "## Goal\nhalf a summ", stopReason: "length" },
        { text: "## Goal\nthe whole summary" },
      ],
    });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        discoverExtensions: false,
      })
    )._unsafeUnwrap();
    await agent.prompt(`First.${LONG}`);
    await agent.prompt("Second.");
    expect((await agent.compact()).isOk()).toBe(true);
    const file = agent.sessionFile!;
    await agent.close();
    const requests = f.requests as RecordedRequest[];
    expect(requests).toHaveLength(4);
    expect(JSON.stringify(requests[3]!.body.system)).toContain("You summarize a coding session");
    const journal = readFileSync(file, "utf8");
    expect(journal).toContain("the whole summary");
    expect(journal).not.toContain("half a summ");
  });

  it("after an overflow (the conversation does not fit), asks for the summary in a request of its own", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { text: `one${LONG}` },
        { kind: "context_overflow" },
        { text: "## Goal\nkeep going" },
        { text: "two" },
      ],
    });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        discoverExtensions: false,
      })
    )._unsafeUnwrap();
    await agent.prompt(`First.${LONG}`);
    const second = await agent.prompt("Second.");
    await agent.close();
    expect(second._unsafeUnwrap().text).toBe("two");
    const summary = (f.requests as RecordedRequest[])[2]!;
    expect(JSON.stringify(summary.body.system)).toContain("You summarize a coding session");
    expect(summary.body.tools).toBeUndefined();
  });
});

describe("the vendor SDK's console output", () => {
  it("goes to the debug log (and debug events), never to the console", async () => {
    box = sandbox();
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((name) =>
      vi.spyOn(console, name).mockImplementation(() => {}),
    );
    // A model id @anthropic-ai/sdk warns about on every request.
    const f = faux({ turns: [{ text: "fine" }] }, { id: "claude-sonnet-4-5-20250929" });
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        discoverExtensions: false,
      })
    )._unsafeUnwrap();
    const debug: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "debug") debug.push(`${e.source} ${e.message}`);
    });
    await agent.prompt("Hi.");
    await agent.close();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    expect(debug).toEqual([
      expect.stringContaining("@anthropic-ai/sdk warn: The model 'claude-sonnet-4-5-20250929' is deprecated"),
    ]);
    expect(readFileSync(join(box.home, "logs", "debug.log"), "utf8")).toContain(
      "[@anthropic-ai/sdk] warn: The model 'claude-sonnet-4-5-20250929' is deprecated",
    );
  });
});
