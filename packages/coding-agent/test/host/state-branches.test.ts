// sessionState lives in the journal (app_state entries), so it follows rewinds, forks and resumes
// with no code in the extension.
import { defineExtension, type ExtensionDefinition, Type, textResult } from "@keel/extension-sdk";
import type { Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgent, createCodingAgent, type SessionChoice } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const counter = defineExtension({
  id: "counter",
  sessionState: { schema: Type.Object({ count: Type.Integer() }), default: { count: 0 } },
  tools: (tool) => [
    tool({
      name: "Bump",
      description: "Adds one to the counter.",
      parameters: Type.Object({}),
      async execute(_args, _ctx, runtime) {
        runtime.state.update((s) => ({ count: s.count + 1 }));
        return textResult(`count is ${runtime.state.get().count}`);
      },
    }),
  ],
  commands: [
    {
      name: "count",
      description: "Shows the count",
      run: (_args, runtime) => ({ message: `count=${runtime.state.get().count}` }),
    },
  ],
}) as ExtensionDefinition;

const bumpThenDone: Scenario = {
  turns: [],
  fallback: (request) => {
    const messages = request.body.messages as { role: string }[];
    // Bump on a fresh prompt, answer once the tool result is back.
    return messages.at(-1)?.role === "user" && JSON.stringify(messages.at(-1)).includes("tool_result")
      ? { text: "Bumped." }
      : { toolCalls: [{ name: "Bump", arguments: {} }] };
  },
};

async function open(session: SessionChoice = { mode: "new" }): Promise<CodingAgent> {
  const f = faux(bumpThenDone);
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
    extensions: [counter],
    discoverExtensions: false,
    session,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

async function count(agent: CodingAgent): Promise<string | undefined> {
  return (await agent.commands.run("/count"))._unsafeUnwrap().message;
}

describe("session state follows branches", () => {
  it("rewind restores the older state, fork keeps it, and resuming either file shows its own", async () => {
    box = sandbox();
    const agent = await open();
    expect(await count(agent)).toBe("count=0");
    for (const p of ["one", "two", "three"])
      expect((await agent.prompt(p))._unsafeUnwrap().text).toBe("Bumped.");
    expect(await count(agent)).toBe("count=3");

    (await agent.rewind(1))._unsafeUnwrap();
    expect(await count(agent)).toBe("count=2");
    expect(agent.extensionState("counter")).toEqual({ count: 2 });
    const original = agent.sessionFile!;

    const forked = (await agent.fork())._unsafeUnwrap();
    expect(forked.sessionFile).not.toBe(original);
    expect(await count(agent)).toBe("count=2");
    await agent.prompt("four");
    expect(await count(agent)).toBe("count=3");
    await agent.close();

    const resumedOriginal = await open({ mode: "resume", session: original });
    expect(await count(resumedOriginal)).toBe("count=2");
    await resumedOriginal.close();

    const resumedFork = await open({ mode: "resume", session: forked.sessionFile });
    expect(await count(resumedFork)).toBe("count=3");
    await resumedFork.close();
  });

  it("branching back to an earlier entry shows the state of that point", async () => {
    box = sandbox();
    const agent = await open();
    await agent.prompt("one");
    const afterOne = agent.tree().find((n) => n.isHead)!.id;
    await agent.prompt("two");
    expect(await count(agent)).toBe("count=2");
    (await agent.branch(afterOne))._unsafeUnwrap();
    expect(await count(agent)).toBe("count=1");
    await agent.close();
  });

  it("opening a fork of a session file by option keeps its state", async () => {
    box = sandbox();
    const agent = await open();
    await agent.prompt("one");
    const file = agent.sessionFile!;
    await agent.close();
    const fork = await open({ mode: "fork", session: file });
    expect(fork.sessionFile).not.toBe(file);
    expect(await count(fork)).toBe("count=1");
    await fork.close();
  });
});
