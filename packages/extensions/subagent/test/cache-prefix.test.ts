// The parent's cache invariant at the wire, measured the way packages/extensions/todo's
// cache-breakpoints test does (raw bytes, markers kept): over a session in which children start
// and finish (foreground, background mid-run, background while idle waking the parent), a
// definition is added, edited and removed, and the todo reminder rides on requests, (1) every
// parent request minus its one-request reminder is a byte prefix of the next one, and (2) each
// request's history breakpoint is on a block the next request has at the same position.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertPrefixRetained } from "@keel/coding-agent/testing";
import { todoExtension } from "@keel/ext-todo";
import {
  isSystemReminder,
  type MockServer,
  type RecordedRequest,
  type ScenarioTurn,
  startMockServer,
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

const todos = (n: number) => [
  { id: "1", content: `Step ${n}`, status: "in_progress" },
  { id: "2", content: "Wrap up", status: "pending" },
];

describe("the parent's cached prefix", () => {
  it("keeps retention 1.000 with markers while children start and finish and definitions change", async () => {
    box = sandbox();
    const helper = join(box.home, "agents", "helper.md");
    const define = (description: string) => {
      box.write("home/.keel/agents/helper.md", `---\ndescription: ${description}\n---\nHelp.`);
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

    // Every parent request (its one-request reminder aside) a prefix of the next, its history
    // breakpoint kept; one or two history markers each (the second, on the previous request's last
    // message, keeps that within the lookback), never on the reminder.
    assertPrefixRetained(requests, { historyMarkers: [1, 2] });

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
