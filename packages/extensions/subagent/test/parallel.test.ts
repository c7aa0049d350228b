// SpawnAgent in the real kernel against the mock model server: five calls in one batch, four run at
// once (their journal timestamps overlap), the fifth gets the capacity answer at once; each child's
// session links to the parent both ways; children get the parent's tools and catalogs but never
// SpawnAgent, GetAgentResult or UpdateTodos.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { todoExtension } from "@keel/ext-todo";
import { defineExtension, Type, textResult } from "@keel/extension-sdk";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { subagentExtension } from "../src/index.js";
import {
  CHILD,
  hosted,
  isChild,
  journal,
  routed,
  type Sandbox,
  sandbox,
  spawn,
  startAgent,
  taskOf,
  toolNames,
  toolResults,
  userTexts,
} from "./harness.js";

let server: MockServer;
let box: Sandbox;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());
afterEach(() => box?.cleanup());

const probe = defineExtension({
  id: "probe",
  catalogs: [
    {
      id: "probe",
      group: "probe",
      discover: () => [
        {
          name: "lookup",
          description: "Look a thing up",
          parameters: Type.Object({}),
          execute: async () => textResult("found"),
        },
      ],
    },
  ],
});

describe("SpawnAgent in parallel", () => {
  it("runs four children at once, answers the fifth with the capacity message, links every child session", async () => {
    box = sandbox();
    const { scenario } = routed(
      [
        {
          toolCalls: [1, 2, 3, 4, 5].map((i) =>
            spawn({ description: `part ${i}`, prompt: `${CHILD} part ${i}` }),
          ),
        },
        { text: "All parts are in." },
      ],
      // Slow enough that all four still run when the fifth asks.
      (task) => ({ text: `done with ${task.slice(CHILD.length).trim()}`, headerDelayMs: 400 }),
    );
    server.setScenario(scenario);
    const from = server.requests.length;
    const agent = await startAgent(server, box, [
      hosted(subagentExtension),
      hosted(todoExtension),
      hosted(probe),
    ]);
    const summary = (await agent.prompt("split the work"))._unsafeUnwrap();
    const parentFile = agent.sessionFile!;
    const records = agent.agents();
    const breakdown = agent.usageBreakdown();
    await agent.close();
    expect(summary.text).toBe("All parts are in.");

    const requests = server.requests.slice(from);
    const parent = requests.filter((r) => !isChild(r));
    const results = toolResults(parent[1]!);
    expect(results).toHaveLength(5);
    const started = results.filter((r) => r.text.includes(" finished."));
    const refused = results.filter((r) => r.text.startsWith("Not started:"));
    expect(started).toHaveLength(4);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.isError).toBe(true);
    expect(refused[0]!.text).toMatch(/4 agents are running \(the limit is 4\)/);
    expect(refused[0]!.text).toMatch(/Wait for one to finish, then try again.*call SpawnAgent again/);
    for (const r of started) expect(r.text).toMatch(/Its final message:\ndone with part \d/);
    expect(started.every((r) => /keel -r \S+ \(read-only\)/.test(r.text))).toBe(true);

    // Overlap, by the parent journal's own timestamps: every child started before any ended.
    const runs = journal(parentFile).filter((e) => e.type === "agent_run");
    const starts = runs.filter((e) => e.phase === "start").map((e) => Date.parse(String(e.timestamp)));
    const ends = runs.filter((e) => e.phase === "end").map((e) => Date.parse(String(e.timestamp)));
    expect(starts).toHaveLength(4);
    expect(ends).toHaveLength(4);
    expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));

    // Linked both ways.
    const parentId = String(journal(parentFile)[0]!.id);
    expect(records).toHaveLength(4);
    for (const record of records) {
      expect(record.status).toBe("completed");
      expect(existsSync(record.sessionFile!)).toBe(true);
      expect(record.sessionFile!.startsWith(join(parentFile, "..", "children"))).toBe(true);
      expect(journal(record.sessionFile!)[0]).toMatchObject({
        spawnedBy: { sessionId: parentId, agentId: record.agentId, toolCallId: record.toolCallId },
      });
      expect(runs.find((e) => e.phase === "end" && e.agentId === record.agentId)).toMatchObject({
        sessionFile: record.sessionFile,
        outcome: { status: "completed" },
      });
    }
    expect(breakdown.children).toHaveLength(4);

    // The children's tools: general-purpose children start from the parent's own prompt and tool
    // list (its cached prefix serves them); the three they may not use stay listed, refused if
    // called (packages/coding-agent/test/kernel/agents-prefix.test.ts shows the refusal).
    const children = requests.filter(isChild);
    expect(new Set(children.map(taskOf)).size).toBe(4);
    for (const child of children) {
      const names = toolNames(child);
      expect(names).toEqual(toolNames(parent[0]!));
      expect(JSON.stringify([child.body.system, child.body.tools])).toBe(
        JSON.stringify([parent[0]!.body.system, parent[0]!.body.tools]),
      );
      const told = userTexts(child)
        .filter((t) => t.startsWith("<capabilities>"))
        .join("\n");
      expect(told).toContain("probe");
      expect(told).not.toContain("general-purpose");
    }
    // The parent has both tools and learns the agents from a capability notice, not its prefix.
    expect(toolNames(parent[0]!)).toEqual(
      expect.arrayContaining(["SpawnAgent", "GetAgentResult", "UpdateTodos"]),
    );
    const notice = userTexts(parent[0]!).find((t) => t.startsWith("<capabilities>"))!;
    expect(notice).toContain('Agents (start one with SpawnAgent { "agent": "<name>", … }):');
    expect(notice).toMatch(/- general-purpose: General agent/);
    expect(notice).toMatch(/- explore: Read-only explorer/);
    expect(JSON.stringify(parent[0]!.body.system)).not.toContain("general-purpose");
  });
});
