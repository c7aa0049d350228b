// Custom agents in the real kernel against the mock server: a trusted project's .keel/agents
// reviewer runs with exactly its tools and its own model and instructions; Claude Code's
// .claude/agents files work unchanged; in an untrusted project neither is loaded.
import { trustProject } from "@keel/coding-agent";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { subagentExtension } from "../src/index.js";
import {
  CHILD,
  hosted,
  isChild,
  routed,
  type Sandbox,
  sandbox,
  spawn,
  startAgent,
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

const REVIEWER = `---
name: reviewer
description: Reviews a diff for bugs and missing tests.
tools: [Read, Grep]
model: anthropic/claude-haiku-5-5
---
You review diffs. List each problem with its file and line.
`;

const AUDITOR = `---
name: security-auditor
description: Use PROACTIVELY after auth changes. Audits for vulnerabilities.
tools: Read, Glob
model: haiku
permissionMode: plan
---

You are a security auditor. Report findings by severity.
`;

async function runAgent(agentName: string, trusted: boolean) {
  const { scenario } = routed(
    [
      { toolCalls: [spawn({ description: "check it", prompt: `${CHILD} check`, agent: agentName })] },
      { text: "ok" },
    ],
    () => ({ text: "No problems found." }),
  );
  server.setScenario(scenario);
  if (trusted) trustProject(box.workspace, { home: box.home })._unsafeUnwrap();
  const from = server.requests.length;
  const agent = await startAgent(server, box, [hosted(subagentExtension)]);
  await agent.prompt("review my change");
  await agent.close();
  const requests = server.requests.slice(from);
  return { parent: requests.filter((r) => !isChild(r)), child: requests.find(isChild) };
}

describe("custom agents", () => {
  it("a trusted project's .keel/agents/reviewer.md runs with exactly its tools, its model and its instructions", async () => {
    box = sandbox();
    box.write("repo/.keel/agents/reviewer.md", REVIEWER);
    const { parent, child } = await runAgent("reviewer", true);
    expect(userTexts(parent[0]!).join("\n")).toContain(
      "- reviewer: Reviews a diff for bugs and missing tests.",
    );
    expect(child).toBeDefined();
    expect(toolNames(child!).sort()).toEqual(["Grep", "Read"]);
    expect(child!.body.model).toBe("claude-haiku-5-5");
    expect(JSON.stringify(child!.body.system)).toContain(
      "You review diffs. List each problem with its file and line.",
    );
    expect(parent[0]!.body.model).not.toBe("claude-haiku-5-5");
    expect(toolResults(parent[1]!)[0]!.text).toMatch(/^Agent reviewer-\S+ \(reviewer: check it\) finished\./);
  });

  it("reads Claude Code's .claude/agents files unchanged: comma-separated tools, a family alias", async () => {
    box = sandbox();
    box.write("repo/.claude/agents/security-auditor.md", AUDITOR);
    const { child } = await runAgent("security-auditor", true);
    expect(toolNames(child!).sort()).toEqual(["Glob", "Read"]);
    expect(child!.body.model).toBe("claude-haiku-5-5");
    expect(JSON.stringify(child!.body.system)).toContain("You are a security auditor.");
  });

  it("in an untrusted project neither folder is read: the agent is not listed and cannot be started", async () => {
    box = sandbox();
    box.write("repo/.keel/agents/reviewer.md", REVIEWER);
    box.write("repo/.claude/agents/security-auditor.md", AUDITOR);
    const { parent, child } = await runAgent("reviewer", false);
    const told = userTexts(parent[0]!).join("\n");
    expect(told).toContain("- general-purpose:");
    expect(told).not.toContain("reviewer");
    expect(told).not.toContain("security-auditor");
    expect(child).toBeUndefined();
    const result = toolResults(parent[1]!)[0]!;
    expect(result.isError).toBe(true);
    expect(result.text).toBe('There is no agent "reviewer". Agents: general-purpose, explore.');
  });
});
