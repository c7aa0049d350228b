// What the user and the parent see of children, in the real kernel against the mock server: a plan
// parent's child cannot write; turn limits and budgets stop a child with its partial work; the
// widget follows running children; /agents lists and stops them; Esc stops foreground children
// only, and a stopped background child is still announced.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { subagentExtension } from "../src/index.js";
import {
  CHILD,
  hosted,
  isChild,
  journal,
  recordingUi,
  routed,
  type Sandbox,
  sandbox,
  spawn,
  startAgent,
  toolResults,
  until,
} from "./harness.js";

let server: MockServer;
let box: Sandbox;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());
afterEach(() => box?.cleanup());

const lastParentResult = (from: number) =>
  toolResults(
    server.requests
      .slice(from)
      .filter((r) => !isChild(r))
      .at(-1)!,
  )[0]!;

describe("children under the parent's rules", () => {
  it("a child of a plan-mode parent cannot write: its Write is denied and nothing lands", async () => {
    box = sandbox();
    const { scenario } = routed(
      [{ toolCalls: [spawn({ description: "write it", prompt: `${CHILD} write` })] }, { text: "ok" }],
      (_task, n) =>
        n === 0
          ? { toolCalls: [{ name: "Write", arguments: { path: "out.txt", content: "x" } }] }
          : { text: "I could not write the file." },
    );
    server.setScenario(scenario);
    const from = server.requests.length;
    const agent = await startAgent(server, box, [hosted(subagentExtension)], { permissionMode: "plan" });
    await agent.prompt("have a child write out.txt");
    const child = agent.agents()[0]!;
    await agent.close();
    expect(existsSync(join(box.workspace, "out.txt"))).toBe(false);
    const denied = journal(child.sessionFile!).find(
      (e) => e.type === "message" && (e.message as { role: string }).role === "toolResult",
    );
    expect(JSON.stringify(denied)).toContain("plan mode");
    expect(lastParentResult(from).text).toMatch(/finished[\s\S]*I could not write the file\./);
  });
});

describe("limits", () => {
  it("a definition's maxTurns stops a child at that many turns, with its work so far", async () => {
    box = sandbox();
    box.write(
      "home/.keel/agents/looper.md",
      "---\ndescription: Lists forever.\nmaxTurns: 2\n---\nKeep listing.",
    );
    const { scenario } = routed(
      [
        { toolCalls: [spawn({ description: "loop", prompt: `${CHILD} loop`, agent: "looper" })] },
        { text: "ok" },
      ],
      (_t, n) => ({ text: `listing round ${n}`, toolCalls: [{ name: "LS", arguments: {} }] }),
    );
    server.setScenario(scenario);
    const from = server.requests.length;
    const agent = await startAgent(server, box, [hosted(subagentExtension)]);
    await agent.prompt("loop");
    const record = agent.agents()[0]!;
    await agent.close();
    expect(record.status).toBe("max_turns");
    expect(server.requests.slice(from).filter(isChild)).toHaveLength(2);
    const result = lastParentResult(from);
    expect(result.isError).toBe(false);
    expect(result.text).toMatch(
      /stopped at its turn limit \(2 turns\)[\s\S]*Its work so far:\nlisting round 1/,
    );
  });

  it("the configured token budget stops a child once its usage passes it, with its work so far", async () => {
    box = sandbox();
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ extensions: { subagent: { config: { budget: { maxTokens: 3000 } } } } }),
    );
    const { scenario } = routed(
      [{ toolCalls: [spawn({ description: "spend", prompt: `${CHILD} spend` })] }, { text: "ok" }],
      (_t, n) => ({
        text: `spent round ${n}`,
        toolCalls: [{ name: "LS", arguments: {} }],
        usage: { input: 1000, output: 600 },
      }),
    );
    server.setScenario(scenario);
    const from = server.requests.length;
    const agent = await startAgent(server, box, [hosted(subagentExtension)]);
    await agent.prompt("spend");
    const record = agent.agents()[0]!;
    await agent.close();
    expect(record.status).toBe("budget");
    expect(record.result!.usage.input + record.result!.usage.output).toBe(3200);
    expect(lastParentResult(from).text).toMatch(
      /stopped at its token\/cost budget[\s\S]*Its work so far:\nspent round 1/,
    );
  });
});

describe("visibility and control", () => {
  it("the widget shows a running child's title, tool, turn, tokens and cost, and goes when it ends", async () => {
    box = sandbox();
    const { scenario } = routed(
      [{ toolCalls: [spawn({ description: "slow listing", prompt: `${CHILD} list` })] }, { text: "ok" }],
      (_t, n) =>
        n === 0
          ? {
              toolCalls: [{ name: "Bash", arguments: { command: "sleep 0.4; echo hi" } }],
              usage: { input: 1200, output: 300 },
            }
          : { text: "listed" },
    );
    server.setScenario(scenario);
    const ui = recordingUi();
    const agent = await startAgent(server, box, [hosted(subagentExtension)], { ui: ui.ui });
    await agent.prompt("list slowly");
    await agent.close();
    const shown = ui.widgets.flatMap((w) => w ?? []);
    expect(shown).toContainEqual(
      expect.stringMatching(/^◆ slow listing · ▸ Bash · turn 1 · 1\.5k tok · \$0\.\d{4}$/),
    );
    expect(ui.widgets.at(-1)).toBeUndefined();
  });

  it("/agents lists children with their session ids; /agents stop stops a background one, whose notice says so", async () => {
    box = sandbox();
    let turn = 0;
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (isChild(r)) return { text: "never", headerDelayMs: 20_000 };
        return turn++ === 0
          ? {
              toolCalls: [
                spawn({ description: "long haul", prompt: `${CHILD} long`, run_in_background: true }),
              ],
            }
          : { text: "noted" };
      },
    });
    const agent = await startAgent(server, box, [hosted(subagentExtension)], { ui: recordingUi(false).ui });
    await agent.prompt("start a long one");
    const [record] = agent.agents();
    const listing = (await agent.commands.run("/agents"))._unsafeUnwrap().message!;
    expect(listing).toMatch(
      new RegExp(`Running:\\n  ${record!.agentId}  long haul · background · working · turn 1`),
    );
    expect(listing).toContain(`session ${record!.sessionId}`);
    expect(listing).toContain("general-purpose (built-in)");
    const stopped = (await agent.commands.run(`/agents stop ${record!.agentId}`))._unsafeUnwrap().message;
    expect(stopped).toBe(`Stopping ${record!.agentId} (long haul).`);
    const file = agent.sessionFile!;
    await until(() => journal(file).some((e) => e.type === "notice"), "the notice");
    const after = (await agent.commands.run("/agents"))._unsafeUnwrap().message!;
    expect(after).toMatch(new RegExp(`Ended:\\n  ${record!.agentId}  long haul · aborted`));
    const detail = (await agent.commands.run(`/agents ${record!.agentId}`))._unsafeUnwrap().message!;
    expect(detail).toContain(`keel -r ${record!.sessionId} (read-only)`);
    await agent.close();
    const notice = journal(file).find((e) => e.type === "notice")!;
    expect(JSON.stringify(notice)).toContain("was stopped before it finished");
  });

  it("Esc (abort) stops the foreground child with the parent's run; a background child runs on", async () => {
    box = sandbox();
    let turn = 0;
    server.setScenario({
      turns: [],
      fallback: (r) => {
        if (isChild(r))
          return JSON.stringify(r.body.messages).includes("background")
            ? { text: "background result", headerDelayMs: 800 }
            : { text: "never", headerDelayMs: 20_000 };
        const n = turn++;
        if (n === 0)
          return {
            toolCalls: [
              spawn({ description: "bg", prompt: `${CHILD} background`, run_in_background: true }),
              spawn({ description: "fg", prompt: `${CHILD} foreground` }),
            ],
          };
        return { text: "after" };
      },
    });
    const agent = await startAgent(server, box, [hosted(subagentExtension)], { ui: recordingUi(false).ui });
    const running = agent.prompt("both");
    await until(() => agent.agents().length === 2, "both children");
    agent.abort();
    expect((await running)._unsafeUnwrap().stopReason).toBe("aborted");
    const byTitle = () => Object.fromEntries(agent.agents().map((a) => [a.title, a.status]));
    expect(byTitle().fg).toBe("aborted");
    expect(byTitle().bg).toBe("running");
    await until(() => byTitle().bg === "completed", "the background child");
    const file = agent.sessionFile!;
    await until(() => journal(file).some((e) => e.type === "notice"), "its notice");
    await agent.close();
    const notices = journal(file).filter((e) => e.type === "notice");
    expect(notices).toHaveLength(1);
    expect(JSON.stringify(notices[0])).toMatch(/\(bg\) finished[\s\S]*background result/);
  });
});
