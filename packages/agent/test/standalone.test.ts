// The loop without the Agent class: agentLoop as an event stream, and configuration read per turn.
import { createFauxFetch, fauxModel } from "@keel/testing";
import { describe, expect, it, vi } from "vitest";
import { type AgentEvent, type AgentLoopConfig, agentLoop, runAgentLoop } from "../src/index.js";
import { createHarness, echoTool } from "./helpers.js";

describe("agentLoop", () => {
  it("is an event stream that ends with agent_end and resolves to the run result", async () => {
    const faux = createFauxFetch({
      turns: [{ toolCalls: [{ name: "echo", arguments: { value: "v" } }] }, { text: "ok" }],
    });
    const config: AgentLoopConfig = {
      model: fauxModel("anthropic-messages"),
      tools: [echoTool()],
      streamOptions: { apiKey: "k", fetch: faux.fetch, retry: { maxRetries: 0 } },
    };
    const history = { messages: [] };
    const stream = agentLoop([{ role: "user", content: "hi", timestamp: 1 }], config, { history });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(events[0]?.type).toBe("agent_start");
    expect(events.at(-1)).toEqual({ type: "agent_end", result });
    expect(result.stopReason).toBe("stop");
    expect(history.messages).toEqual(result.messages);
  });
});

describe("runAgentLoop", () => {
  it("runs on when emit or the queues throw, and says so once each", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const faux = createFauxFetch({ turns: [{ text: "ok" }] });
      const config: AgentLoopConfig = {
        model: fauxModel("anthropic-messages"),
        streamOptions: { apiKey: "k", fetch: faux.fetch, retry: { maxRetries: 0 } },
      };
      const queues = {
        takeSteering: () => [],
        takeFollowUp: () => [],
        close: (): never => {
          throw new Error("queue bug");
        },
      };
      const result = await runAgentLoop([{ role: "user", content: "hi", timestamp: 1 }], config, {
        history: { messages: [] },
        queues,
        emit: () => {
          throw new Error("emit bug");
        },
      });
      expect(result.stopReason).toBe("stop");
      expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      const warnings = warn.mock.calls.map((c) => String(c[0]));
      expect(warnings).toHaveLength(2);
      expect(warnings.filter((w) => w.includes("emit bug"))).toHaveLength(1);
      expect(warnings.filter((w) => w.includes("queue bug"))).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("Agent.configure", () => {
  it("changes what the next turn sends", async () => {
    const { agent, faux } = createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { value: "v" } }] }, { text: "ok" }],
      { tools: [echoTool()], systemPrompt: "first prompt" },
    );
    agent.subscribe((e) => {
      if (e.type === "turn_end" && e.turn === 1) agent.configure({ tools: [echoTool(), echoTool("extra")] });
    });
    await agent.prompt("go");
    const toolNames = (i: number) =>
      (faux.requests[i]?.body.tools as { name: string }[] | undefined)?.map((t) => t.name);
    expect(toolNames(0)).toEqual(["echo"]);
    expect(toolNames(1)).toEqual(["echo", "extra"]);
    expect(agent.config.tools?.map((t) => t.name)).toEqual(["echo", "extra"]);
  });
});
