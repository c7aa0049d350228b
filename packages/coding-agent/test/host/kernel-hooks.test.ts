// Hooks through the real kernel and the faux provider: a policy's reason reaches the model as
// the tool result, a throwing policy blocks, observers failing do not stop the run, and runEnd
// fires after every run — after runError when the provider failed.
import { defineExtension, type ExtensionDefinition, Type, textResult } from "@keel/extension-sdk";
import type { Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { toolResultTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const echo = defineExtension({
  id: "echo",
  tools: (tool) => [
    tool({
      name: "Echo",
      description: "Echoes its text.",
      parameters: Type.Object({ text: Type.String() }),
      execute: async (args) => textResult(`echo: ${args.text}`),
    }),
  ],
}) as ExtensionDefinition;

async function agentWith(scenario: Scenario, extensions: ExtensionDefinition[]) {
  box = sandbox();
  const f = faux(scenario);
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
    extensions,
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, requests: f.requests };
}

const echoThenDone: Scenario = {
  turns: [{ toolCalls: [{ name: "Echo", arguments: { text: "hi" } }] }, { text: "Done." }],
};

describe("policy hooks through the kernel", () => {
  it("a block reason is the tool result the model sees; the tool never runs", async () => {
    let ran = false;
    const guarded = defineExtension({
      id: "echo",
      tools: (tool) => [
        tool({
          name: "Echo",
          description: "Echoes.",
          parameters: Type.Object({ text: Type.String() }),
          execute: async () => {
            ran = true;
            return textResult("ran");
          },
        }),
      ],
    }) as ExtensionDefinition;
    const policy = defineExtension({
      id: "policy",
      hooks: {
        beforeToolCall: (e) =>
          e.toolName === "Echo"
            ? { action: "block", reason: "Echo is disabled in this repository." }
            : undefined,
      },
    }) as ExtensionDefinition;
    const { agent, requests } = await agentWith(echoThenDone, [guarded, policy]);
    const run = await agent.prompt("say hi");
    expect(run._unsafeUnwrap().stopReason).toBe("stop");
    await agent.close();
    expect(ran).toBe(false);
    expect(requests).toHaveLength(2);
    const results = toolResultTexts(requests[1]!.body);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.text).toContain("Echo is disabled in this repository.");
  });

  it("a throwing beforeToolCall blocks the call (fail closed) and is reported once", async () => {
    const policy = defineExtension({
      id: "policy",
      hooks: {
        beforeToolCall: () => {
          throw new Error("rules file is corrupt");
        },
      },
    }) as ExtensionDefinition;
    const { agent, requests } = await agentWith(echoThenDone, [echo, policy]);
    await agent.prompt("say hi");
    const diagnostics = agent.diagnostics().filter((d) => d.extensionId === "policy");
    await agent.close();
    const results = toolResultTexts(requests[1]!.body);
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.text).toContain("policy failed (rules file is corrupt)");
    expect(results[0]!.text).not.toContain("echo: hi");
    expect(diagnostics).toHaveLength(1);
  });

  it("without a policy the tool runs and the model sees its result", async () => {
    const { agent, requests } = await agentWith(echoThenDone, [echo]);
    await agent.prompt("say hi");
    await agent.close();
    expect(toolResultTexts(requests[1]!.body)).toEqual([{ text: "echo: hi", isError: false }]);
  });
});

describe("observers through the kernel", () => {
  it("an observer that throws on every turn is one diagnostic and the run completes", async () => {
    const observer = defineExtension({
      id: "noisy",
      hooks: {
        turnStart: () => {
          throw new Error("widget gone");
        },
      },
    }) as ExtensionDefinition;
    const { agent } = await agentWith(echoThenDone, [echo, observer]);
    const run = await agent.prompt("say hi");
    expect(run._unsafeUnwrap()).toMatchObject({ stopReason: "stop", turns: 2, text: "Done." });
    const noisy = agent.diagnostics().filter((d) => d.extensionId === "noisy");
    await agent.close();
    expect(noisy).toHaveLength(1);
    expect(noisy[0]!.message).toContain("widget gone");
  });
});

describe("runEnd always", () => {
  function recorder() {
    const log: { hook: string; event: Record<string, unknown> }[] = [];
    const definition = defineExtension({
      id: "recorder",
      hooks: {
        runStart: (event) => void log.push({ hook: "runStart", event: { ...event } }),
        runError: (event) => void log.push({ hook: "runError", event: { ...event } }),
        runEnd: (event) => void log.push({ hook: "runEnd", event: { ...event } }),
      },
    }) as ExtensionDefinition;
    return { log, definition };
  }

  it("after a provider error: runError with the error, then runEnd with stop reason error", async () => {
    const { log, definition } = recorder();
    const { agent } = await agentWith(
      { turns: [{ kind: "error", status: 400, message: "messages: field required" }] },
      [definition],
    );
    const run = await agent.prompt("hello");
    await agent.close();
    expect(run._unsafeUnwrap().stopReason).toBe("error");
    expect(log.map((l) => l.hook)).toEqual(["runStart", "runError", "runEnd"]);
    const runError = log[1]!.event as { error: { message: string }; stopReason: string };
    expect(runError.stopReason).toBe("error");
    expect(runError.error.message).toContain("messages: field required");
    const runEnd = log[2]!.event as { stopReason: string; turns: number; error?: { message: string } };
    expect(runEnd.stopReason).toBe("error");
    expect(runEnd.error?.message).toContain("messages: field required");
    // JSON-safe: the events survive a round trip unchanged.
    expect(JSON.parse(JSON.stringify(log))).toEqual(log);
  });

  it("after a successful run: runEnd with turns and usage, and no runError", async () => {
    const { log, definition } = recorder();
    const { agent } = await agentWith(echoThenDone, [echo, definition]);
    await agent.prompt("say hi");
    await agent.close();
    expect(log.map((l) => l.hook)).toEqual(["runStart", "runEnd"]);
    const runEnd = log[1]!.event as { stopReason: string; turns: number; usage: { output: number } };
    expect(runEnd.stopReason).toBe("stop");
    expect(runEnd.turns).toBe(2);
    expect(runEnd.usage.output).toBeGreaterThan(0);
  });
});

describe("abort while a run starts", () => {
  it("an abort during a slow beforeAgentStart ends the run aborted, with nothing sent", async () => {
    let entered!: () => void;
    const started = new Promise<void>((r) => {
      entered = r;
    });
    const slow = defineExtension({
      id: "slow",
      hooks: {
        beforeAgentStart: async () => {
          entered();
          await new Promise((r) => setTimeout(r, 100));
          return undefined;
        },
      },
    }) as ExtensionDefinition;
    const { agent, requests } = await agentWith({ turns: [{ text: "should not be asked" }] }, [slow]);
    const running = agent.prompt("hello");
    await started;
    agent.abort();
    const summary = (await running)._unsafeUnwrap();
    await agent.close();
    expect(summary.stopReason).toBe("aborted");
    expect(requests).toHaveLength(0);
  });
});

describe("modelResponseStart", () => {
  it("fires once per model call, only after its request reached the provider", async () => {
    const seen: { turn: number; requestsOut: number }[] = [];
    let requests: { length: number } = { length: 0 };
    const watcher = defineExtension({
      id: "watcher",
      hooks: {
        modelResponseStart: (event) => {
          seen.push({ turn: event.turn, requestsOut: requests.length });
        },
      },
    }) as ExtensionDefinition;
    const started = await agentWith(echoThenDone, [echo, watcher]);
    requests = started.requests;
    await started.agent.prompt("go");
    await started.agent.close();
    expect(seen).toEqual([
      { turn: 1, requestsOut: 1 },
      { turn: 2, requestsOut: 2 },
    ]);
  });
});
