// Tool batches: parallel calls run together and publish in call order; sequential calls run alone.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../src/index.js";
import { createHarness, deferred, defineTool, text, toolResults } from "./helpers.js";

const IdParams = Type.Object({ id: Type.String() });

interface Span {
  id: string;
  start: number;
  end: number;
}

/** A tool that records when each call starts and ends and takes `ms` to finish. */
function timedTool(name: string, spans: Span[], ms: number, executionMode: "parallel" | "sequential") {
  return defineTool(
    name,
    IdParams,
    async ({ id }) => {
      const start = performance.now();
      await sleep(ms);
      spans.push({ id, start, end: performance.now() });
      return { content: [{ type: "text", text: `done:${id}` }] };
    },
    { executionMode },
  );
}

function span(spans: Span[], id: string): Span {
  const found = spans.find((s) => s.id === id);
  if (!found) throw new Error(`no span ${id}`);
  return found;
}

const endIds = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));

describe("parallel tools", () => {
  it("publish results in call order even when they complete out of order", async () => {
    const completed: string[] = [];
    const fastDone = deferred();
    // "slow" cannot finish before "fast" has: only a concurrent run gets both done.
    const slow = defineTool("slow", IdParams, async ({ id }) => {
      const gate = await Promise.race([
        fastDone.promise.then(() => "open"),
        sleep(2000).then(() => "timeout"),
      ]);
      completed.push(id);
      return { content: [{ type: "text", text: `slow:${gate}` }] };
    });
    const fast = defineTool("fast", IdParams, async ({ id }) => {
      completed.push(id);
      fastDone.resolve();
      return { content: [{ type: "text", text: "fast" }] };
    });
    const { agent, events } = createHarness(
      [
        {
          toolCalls: [
            { id: "c1", name: "slow", arguments: { id: "c1" } },
            { id: "c2", name: "fast", arguments: { id: "c2" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [slow, fast] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();

    expect(completed).toEqual(["c2", "c1"]);
    expect(endIds(events)).toEqual(["c1", "c2"]);
    const results = toolResults(result.messages);
    expect(results.map((r) => r.toolCallId)).toEqual(["c1", "c2"]);
    expect(text(results[0]!)).toBe("slow:open");
    const toolResultEnds = events.flatMap((e) =>
      e.type === "message_end" && e.message.role === "toolResult" ? [e.message.toolCallId] : [],
    );
    expect(toolResultEnds).toEqual(["c1", "c2"]);
  });

  it("stream updates while running, tagged with their call", async () => {
    const tool = defineTool("progress", IdParams, async ({ id }, { onUpdate }) => {
      onUpdate({ content: [{ type: "text", text: `${id}:half` }] });
      await sleep(1);
      return { content: [{ type: "text", text: `${id}:done` }] };
    });
    const { agent, events } = createHarness(
      [{ toolCalls: [{ id: "p1", name: "progress", arguments: { id: "p1" } }] }, { text: "ok" }],
      { tools: [tool] },
    );
    await agent.prompt("go");
    const types = events.flatMap((e) => (e.type.startsWith("tool_execution") ? [e.type] : []));
    expect(types).toEqual(["tool_execution_start", "tool_execution_update", "tool_execution_end"]);
    expect(events.find((e) => e.type === "tool_execution_update")).toEqual({
      type: "tool_execution_update",
      toolCallId: "p1",
      toolName: "progress",
      partial: { content: [{ type: "text", text: "p1:half" }] },
    });
  });
});

describe("sequential tools", () => {
  it("run one at a time, in order", async () => {
    const spans: Span[] = [];
    const { agent, events } = createHarness(
      [
        {
          toolCalls: [
            { id: "s1", name: "seq", arguments: { id: "s1" } },
            { id: "s2", name: "seq", arguments: { id: "s2" } },
            { id: "s3", name: "seq", arguments: { id: "s3" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [timedTool("seq", spans, 15, "sequential")] },
    );
    await agent.prompt("go");
    expect(spans.map((s) => s.id)).toEqual(["s1", "s2", "s3"]);
    expect(span(spans, "s2").start).toBeGreaterThanOrEqual(span(spans, "s1").end);
    expect(span(spans, "s3").start).toBeGreaterThanOrEqual(span(spans, "s2").end);
    expect(endIds(events)).toEqual(["s1", "s2", "s3"]);
  });

  it("split a mixed batch: contiguous parallel calls together, each sequential call alone", async () => {
    const spans: Span[] = [];
    const { agent, events } = createHarness(
      [
        {
          toolCalls: [
            { id: "p1", name: "par", arguments: { id: "p1" } },
            { id: "p2", name: "par", arguments: { id: "p2" } },
            { id: "s1", name: "seq", arguments: { id: "s1" } },
            { id: "p3", name: "par", arguments: { id: "p3" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [timedTool("par", spans, 15, "parallel"), timedTool("seq", spans, 5, "sequential")] },
    );
    await agent.prompt("go");
    const [p1, p2, s1, p3] = ["p1", "p2", "s1", "p3"].map((id) => span(spans, id)) as [
      Span,
      Span,
      Span,
      Span,
    ];
    // p1 and p2 overlapped; s1 waited for both; p3 waited for s1.
    expect(p2.start).toBeLessThan(p1.end);
    expect(p1.start).toBeLessThan(p2.end);
    expect(s1.start).toBeGreaterThanOrEqual(Math.max(p1.end, p2.end));
    expect(p3.start).toBeGreaterThanOrEqual(s1.end);
    expect(endIds(events)).toEqual(["p1", "p2", "s1", "p3"]);
  });
});
