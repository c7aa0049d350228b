// The operation journal around an abort: a call the run stopped after its T1 but before it ran is
// closed with a T2 (the journal never claims an outcome it cannot know for a call that never ran),
// and a call whose approval arrives after the abort writes no T1 at all.
import { readFileSync } from "node:fs";
import { defineExtension, type ExtensionDefinition, Type, textResult } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentOptions, createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const ran: string[] = [];
const writer = defineExtension({
  id: "writer",
  tools: (tool) => [
    tool({
      name: "Deploy",
      description: "Deploys.",
      parameters: Type.Object({}),
      sideEffects: true,
      execute: async () => {
        ran.push("Deploy");
        return textResult("deployed");
      },
    }),
  ],
}) as ExtensionDefinition;

async function start(options: Partial<CodingAgentOptions>) {
  box = sandbox();
  ran.length = 0;
  const f = faux({ turns: [{ toolCalls: [{ name: "Deploy", arguments: {} }] }, { text: "ok" }] });
  const agent = (
    await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      extensions: [writer],
      discoverExtensions: false,
      ...options,
    })
  )._unsafeUnwrap();
  const journal = () =>
    readFileSync(agent.sessionFile!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { agent, journal };
}

describe("T1/T2 around an abort", () => {
  it("a call aborted after its T1, before it ran, gets a T2 saying it did not run", async () => {
    const { agent, journal } = await start({ permissionMode: "bypassPermissions" });
    // Aborted as the call is announced: after the seam wrote T1, before execute.
    agent.subscribe((e) => {
      if (e.type === "tool_start") agent.abort();
    });
    const summary = (await agent.prompt("go"))._unsafeUnwrap();
    await agent.close();
    expect(summary.stopReason).toBe("aborted");
    expect(ran).toEqual([]);
    const begin = journal().find((e) => e.type === "op_begin");
    expect(begin).toMatchObject({ toolName: "Deploy" });
    expect(journal().find((e) => e.type === "op_end")).toMatchObject({
      toolCallId: begin!.toolCallId,
      outcome: "error",
    });
  });

  it("an approval that arrives after the abort writes no T1", async () => {
    let answer!: () => void;
    const { agent, journal } = await start({
      permissionMode: "default",
      ui: {
        approve: () =>
          new Promise((resolve) => {
            answer = () => resolve({ decision: "allow_once" });
          }),
      },
    });
    const running = agent.prompt("go");
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    agent.abort();
    expect((await running)._unsafeUnwrap().stopReason).toBe("aborted");
    // The user clicks "allow" on the dialog of a run that is gone.
    answer();
    await new Promise((r) => setTimeout(r, 50));
    await agent.close();
    expect(ran).toEqual([]);
    expect(journal().filter((e) => e.type === "op_begin" || e.type === "op_end")).toEqual([]);
  });
});

describe("close() during a run", () => {
  it("lets the aborted run journal what it did before the session file closes", async () => {
    box = sandbox();
    const f = faux({
      turns: [{ toolCalls: [{ name: "Bash", arguments: { command: "sleep 30" } }] }, { text: "never" }],
    });
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
    const diagnostics: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") diagnostics.push(e.diagnostic.message);
    });
    const file = agent.sessionFile!;
    const running = agent.prompt("go");
    while (!readFileSync(file, "utf8").includes('"op_begin"')) await new Promise((r) => setTimeout(r, 10));
    await agent.close();
    await running;
    const journal = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; message?: { role: string } });
    expect(diagnostics).toEqual([]);
    expect(journal.some((e) => e.type === "op_end")).toBe(true);
    expect(journal.some((e) => e.type === "message" && e.message?.role === "toolResult")).toBe(true);
  });
});
