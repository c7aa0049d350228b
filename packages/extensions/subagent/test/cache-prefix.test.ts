// The parent's cache invariant at the wire, measured the way packages/extensions/todo's
// cache-breakpoints test does (raw bytes, markers kept): over a session in which children start
// and finish (foreground, background mid-run, background while idle waking the parent), a
// definition is added, edited and removed, and the todo reminder rides on requests, (1) every
// parent request minus its one-request reminder is a byte prefix of the next one, and (2) each
// request's history breakpoint is on a block the next request has at the same position.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { todoExtension } from "@keel/ext-todo";
import {
  type CacheBreakpoint,
  cacheLines,
  historyBreakpoints,
  isSystemReminder,
  type MockServer,
  type RecordedRequest,
  type ScenarioTurn,
  startMockServer,
  stripCacheControl,
} from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { subagentExtension } from "../src/index.js";
import {
  CHILD,
  getResult,
  hosted,
  isChild,
  type Json,
  recordingUi,
  type Sandbox,
  sandbox,
  spawn,
  startAgent,
  toolResults,
  until,
  userTexts,
} from "./harness.js";

let server: MockServer;
let box: Sandbox;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());
afterEach(() => box?.cleanup());

/** System and tools, then one line per message; the trailing reminder dropped when asked. */
function canonical(request: RecordedRequest, dropReminder: boolean): string {
  return cacheLines(request, { dropReminder }).join("\n");
}

/**
 * Where the history breakpoint is in the raw request: the marker on its last kept message (a
 * second one, on the previous request's last message, keeps that within the lookback).
 */
function breakpoint(request: RecordedRequest): CacheBreakpoint {
  const found = historyBreakpoints(request);
  expect(found.length, "one or two history breakpoints per request").toBeGreaterThanOrEqual(1);
  expect(found.length).toBeLessThanOrEqual(2);
  return found.at(-1)!;
}

/** Retention over consecutive requests: the share of them whose bytes the next one keeps. */
function retention(requests: RecordedRequest[]): number {
  let kept = 0;
  for (let n = 0; n + 1 < requests.length; n++) {
    const current = canonical(requests[n]!, true);
    const next = canonical(requests[n + 1]!, false);
    if (!next.startsWith(current)) {
      const a = current.split("\n");
      const b = next.split("\n");
      const i = a.findIndex((line, k) => line !== b[k]);
      expect.fail(
        `request ${n} is not a prefix of ${n + 1} at line ${i}:\n${a[i]?.slice(0, 400)}\n!==\n${b[i]?.slice(0, 400)}`,
      );
    }
    const mark = breakpoint(requests[n]!);
    const nextMessages = (JSON.parse(requests[n + 1]!.raw) as Json).messages as { content: Json[] }[];
    const same = nextMessages[mark.message]?.content?.[mark.block];
    expect(same, `request ${n + 1} lacks block ${mark.message}.${mark.block}`).toBeDefined();
    expect(stripCacheControl(same)).toEqual(stripCacheControl(mark.value));
    expect(isSystemReminder(((JSON.parse(requests[n]!.raw) as Json).messages as Json[])[mark.message])).toBe(
      false,
    );
    kept++;
  }
  return kept / (requests.length - 1);
}

const todos = (n: number) => [
  { id: "1", content: `Step ${n}`, status: "in_progress" },
  { id: "2", content: "Wrap up", status: "pending" },
];

describe("the parent's cached prefix", () => {
  it("keeps retention 1.000 with markers while children start and finish and definitions change", async () => {
    box = sandbox();
    const helper = join(box.home, "agents", "helper.md");
    const define = (description: string) => {
      box.write("home/agents/helper.md", `---\ndescription: ${description}\n---\nHelp.`);
    };
    let beta = "";
    let p = 0;
    const parent = (r: RecordedRequest): ScenarioTurn => {
      beta ||=
        toolResults(r).flatMap((t) => /^Started background agent (\S+) /.exec(t.text)?.[1] ?? [])[0] ?? "";
      const update = { name: "UpdateTodos", arguments: { todos: todos(p) } };
      switch (p++) {
        case 0:
          return { toolCalls: [update, spawn({ description: "alpha", prompt: `${CHILD} alpha` })] };
        case 1:
          define("Helps with small chores.");
          return {
            toolCalls: [spawn({ description: "beta", prompt: `${CHILD} beta`, run_in_background: true })],
          };
        case 2:
          // Beta ends while this answer is on its way: its notice goes with the next request.
          return { toolCalls: [update, { name: "LS", arguments: {} }], headerDelayMs: 500 };
        case 3:
          writeFileSync(helper, "---\ndescription: Helps with small chores, now faster.\n---\nHelp.");
          return { toolCalls: [update] };
        case 4:
          return { toolCalls: [getResult({ agent_id: beta })] };
        case 5:
          return { text: "Part one done." };
        case 6:
          rmSync(helper);
          return {
            toolCalls: [spawn({ description: "gamma", prompt: `${CHILD} gamma`, run_in_background: true })],
          };
        case 7:
          return { text: "Waiting for gamma." };
        default:
          return { text: "Gamma is in." };
      }
    };
    server.setScenario({
      turns: [],
      fallback: (r) =>
        isChild(r)
          ? {
              text: `${JSON.stringify(r.body.messages).match(/alpha|beta|gamma/)?.[0]} done`,
              headerDelayMs: 150,
            }
          : parent(r),
    });
    const from = server.requests.length;
    const agent = await startAgent(server, box, [hosted(todoExtension), hosted(subagentExtension)], {
      ui: recordingUi(true).ui,
    });
    const ends: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "run_end") ends.push(e.summary.text);
    });
    expect((await agent.prompt("Part one."))._unsafeUnwrap().text).toBe("Part one done.");
    expect((await agent.prompt("Part two."))._unsafeUnwrap().text).toBe("Waiting for gamma.");
    await until(() => ends.length === 3, "the run gamma's end wakes");
    await agent.close();
    const requests = server.requests.slice(from).filter((r) => !isChild(r));
    expect(requests).toHaveLength(9);
    expect(ends.at(-1)).toBe("Gamma is in.");

    expect(retention(requests)).toBe(1);

    // What changed reached the model by appending only: the list, then Added / Updated / Removed.
    const all = userTexts(requests.at(-1)!);
    const capabilities = all.filter((t) => t.startsWith("<capabilities>"));
    expect(capabilities[0]).toContain("- general-purpose:");
    expect(capabilities.slice(1).join("\n")).toMatch(
      /Added:\n {2}agents:\n {4}- helper: Helps with small chores\.[\s\S]*Updated:\n {2}agents:\n {4}- helper: Helps with small chores, now faster\.[\s\S]*Removed:\n {2}agents: helper/,
    );
    expect(all.filter((t) => t.startsWith('<notice from="subagent">'))).toEqual([
      expect.stringMatching(/^<notice from="subagent">\nBackground agent \S+ \(beta\) finished/),
      expect.stringMatching(/^<notice from="subagent">\nBackground agent \S+ \(gamma\) finished/),
    ]);
    // The reminder rode along and never took a breakpoint (checked above); the system prompt and
    // tools never changed.
    expect(
      requests.some((r) => isSystemReminder(((JSON.parse(r.raw) as Json).messages as Json[]).at(-1))),
    ).toBe(true);
    expect(new Set(requests.map((r) => JSON.stringify([r.body.system, r.body.tools]))).size).toBe(1);
  });
});
