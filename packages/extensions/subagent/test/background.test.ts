// Background children in the real kernel against the mock server: the id comes back at once, the
// parent keeps working, a child that ends mid-run is announced by one notice before the next
// request (journaled once), GetAgentResult waits before completion and reads after it, a pulled
// result is never announced again, both survive a resume; an idle interactive parent is woken by
// a child's end (a failed one too), a headless one is not.
import { readFileSync } from "node:fs";
import type { RecordedRequest, ScenarioTurn } from "@keel/testing";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { subagentExtension } from "../src/index.js";
import {
  CHILD,
  getResult,
  hosted,
  isChild,
  journal,
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

/** The ids "Started background agent <id>" results named so far, in order. */
function startedIds(r: RecordedRequest): string[] {
  return toolResults(r).flatMap((t) => /^Started background agent (\S+) /.exec(t.text)?.[1] ?? []);
}

const noticeEntries = (file: string) => journal(file).filter((e) => e.type === "notice");

describe("background children", () => {
  it("return an id at once, deliver once by notice or by GetAgentResult, and survive a resume", async () => {
    box = sandbox();
    let ids: string[] = [];
    const parent = (r: RecordedRequest): ScenarioTurn => {
      if (ids.length === 0) ids = startedIds(r);
      const [slow, quick] = ids;
      switch (parentTurn++) {
        case 0:
          return {
            toolCalls: [
              spawn({ description: "slow errand", prompt: `${CHILD} slow`, run_in_background: true }),
              spawn({ description: "quick errand", prompt: `${CHILD} quick`, run_in_background: true }),
            ],
          };
        case 1:
          // The parent keeps working; the quick child ends while this answer is on its way.
          return { toolCalls: [{ name: "LS", arguments: {} }], headerDelayMs: 1500 };
        case 2:
          return { toolCalls: [getResult({ agent_id: slow, wait_ms: 30 })] };
        case 3:
          return { toolCalls: [getResult({ agent_id: slow, wait_ms: 20_000 })] };
        case 4:
          return { toolCalls: [getResult({ agent_id: quick })] };
        default:
          return { text: "Both errands are done." };
      }
    };
    let parentTurn = 0;
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (!isChild(r)) return parent(r);
        const slow = JSON.stringify(r.body.messages).includes("slow");
        return { text: slow ? "slow result: 42" : "quick result: 7", headerDelayMs: slow ? 4000 : 500 };
      },
    });
    const from = server.requests.length;
    const agent = await startAgent(server, box, [hosted(subagentExtension)]);
    expect((await agent.prompt("run two errands"))._unsafeUnwrap().text).toBe("Both errands are done.");
    const file = agent.sessionFile!;
    const state = agent.extensionState("subagent");
    await agent.close();

    const requests = server.requests.slice(from).filter((r) => !isChild(r));
    const [slow, quick] = ids;
    // At once: both calls' results are journaled before either child ended.
    expect(ids).toHaveLength(2);
    const entries = journal(file);
    const firstEnd = entries.findIndex((e) => e.type === "agent_run" && e.phase === "end");
    const spawnResults = entries.flatMap((e, i) =>
      e.type === "message" && JSON.stringify(e.message).includes("Started background agent") ? [i] : [],
    );
    expect(spawnResults).toHaveLength(2);
    expect(Math.max(...spawnResults)).toBeLessThan(firstEnd);

    // The quick child's notice: first on the request after it ended, then kept; journaled once.
    const told = (r: RecordedRequest) => userTexts(r).filter((t) => t.includes(`Background agent ${quick} `));
    expect(told(requests[1]!)).toHaveLength(0);
    expect(told(requests[2]!)).toHaveLength(1);
    for (const r of requests.slice(2)) expect(told(r)).toHaveLength(1);
    expect(told(requests[2]!)[0]).toMatch(
      /finished\. 1 turn,[\s\S]*Result:\nquick result: 7[\s\S]*GetAgentResult/,
    );
    expect(told(requests[2]!)[0]!.length).toBeLessThan(2200);
    const notices = noticeEntries(file);
    expect(notices.map((n) => n.key)).toEqual([`agent:${quick}`]);

    // GetAgentResult before completion (still running), while waiting (the result), after (a re-read).
    const results = (n: number) => toolResults(requests[n]!).at(-1)!.text;
    expect(results(3)).toMatch(new RegExp(`^Agent ${slow} \\(slow errand\\) is still running after waiting`));
    expect(results(4)).toMatch(
      new RegExp(`^Agent ${slow} \\(slow errand\\) finished[\\s\\S]*slow result: 42`),
    );
    expect(results(5)).toMatch(/quick result: 7[\s\S]*Its completion notice came earlier/);
    // Pulled while it waited: the slow child is never announced.
    for (const r of requests)
      expect(userTexts(r).some((t) => t.includes(`Background agent ${slow} `))).toBe(false);
    expect(state).toMatchObject({
      children: [
        { agentId: slow, delivery: "pulled", background: true },
        { agentId: quick, delivery: "notice", background: true },
      ],
    });

    // After a resume: both results are still there, nothing is announced twice.
    let turn = 0;
    server.setScenario({
      turns: [],
      fallback: () =>
        turn++ === 0 ? { toolCalls: [getResult({ agent_id: slow })] } : { text: "still known" },
    });
    const resumed = await startAgent(server, box, [hosted(subagentExtension)], {
      session: { mode: "resume", session: file },
    });
    expect(resumed.agents().map((a) => a.status)).toEqual(["completed", "completed"]);
    await resumed.prompt("what did the slow one find?");
    await resumed.close();
    expect(toolResults(server.requests.at(-1)!).at(-1)!.text).toMatch(/slow result: 42/);
    expect(noticeEntries(file)).toHaveLength(1);
    expect(readFileSync(file, "utf8")).not.toContain(`"key":"agent:${slow}"`);
  });

  it("wake an idle interactive parent when they end, failed ones too; a headless parent is not woken", async () => {
    box = sandbox();
    let turn = 0;
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (isChild(r))
          return JSON.stringify(r.body.messages).includes("doomed")
            ? { kind: "error", status: 400, message: "the request is bad" }
            : { text: "found the config in etc/app.toml", headerDelayMs: 200 };
        const n = turn++;
        if (n === 0)
          return {
            toolCalls: [
              spawn({ description: "find config", prompt: `${CHILD} find`, run_in_background: true }),
            ],
          };
        if (n === 1) return { text: "I will wait for it." };
        if (n === 2) return { text: "It found etc/app.toml." };
        if (n === 3)
          return {
            toolCalls: [spawn({ description: "doomed", prompt: `${CHILD} doomed`, run_in_background: true })],
          };
        if (n === 4) return { text: "Started it." };
        return { text: "That one failed; I will do it myself." };
      },
    });
    const ui = recordingUi(true);
    const agent = await startAgent(server, box, [hosted(subagentExtension)], { ui: ui.ui });
    const ends: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "run_end") ends.push(e.summary.text);
    });
    await agent.prompt("find the config in the background");
    await until(() => ends.length === 2, "the woken run");
    await agent.prompt("now a doomed one");
    await until(() => ends.length === 4, "the second woken run");
    await agent.close();
    expect(ends).toEqual([
      "I will wait for it.",
      "It found etc/app.toml.",
      "Started it.",
      "That one failed; I will do it myself.",
    ]);
    const parents = server.requests.filter((r) => !isChild(r)).slice(-6);
    expect(userTexts(parents[2]!).at(-1)).toMatch(
      /^<notice from="subagent">\nBackground agent \S+ \(find config\) finished/,
    );
    expect(userTexts(parents[5]!).at(-1)).toMatch(/\(doomed\) failed: /);
    expect(ui.notes.some((n) => /\(find config\) finished/.test(n))).toBe(true);

    // Headless (print mode): the notice is journaled at once but starts no run.
    box.cleanup();
    box = sandbox();
    turn = 0;
    const headless = await startAgent(server, box, [hosted(subagentExtension)], {
      ui: recordingUi(false).ui,
    });
    const runs: string[] = [];
    headless.subscribe((e) => {
      if (e.type === "run_end") runs.push(e.summary.text);
    });
    await headless.prompt("find the config in the background");
    const file = headless.sessionFile!;
    await until(() => noticeEntries(file).length === 1, "the notice");
    await new Promise((r) => setTimeout(r, 300));
    await headless.close();
    expect(runs).toEqual(["I will wait for it."]);
  });
});
