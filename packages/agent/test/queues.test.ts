// Steering (delivered after the current tool batch) and follow-up (delivered when the agent would stop).

import { describe, expect, it } from "vitest";
import type { Agent } from "../src/index.js";
import { createHarness, echoTool, sentMessages, toolResults } from "./helpers.js";

function steeringEcho(agent: () => Agent, message: string) {
  return echoTool("steer_echo", {
    execute: async (args) => {
      expect(agent().steer(message).isOk()).toBe(true);
      return { content: [{ type: "text", text: `echo:${args.value}` }] };
    },
  });
}

describe("steering", () => {
  it("queued mid-batch arrives after the whole batch's results, before the next request", async () => {
    let agentRef: Agent | undefined;
    const { agent, faux, events } = createHarness(
      [
        {
          toolCalls: [
            { id: "a", name: "steer_echo", arguments: { value: "a" } },
            { id: "b", name: "echo", arguments: { value: "b" } },
          ],
        },
        { text: "Changing plan." },
      ],
      { tools: [steeringEcho(() => agentRef!, "Stop, use the other file."), echoTool()] },
    );
    agentRef = agent;
    const result = (await agent.prompt("go"))._unsafeUnwrap();

    // Nothing already asked for was skipped.
    expect(toolResults(result.messages).map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", false],
      ["b", false],
    ]);
    expect(result.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
      "assistant",
    ]);
    expect(result.messages[4]).toMatchObject({ role: "user", content: "Stop, use the other file." });
    expect(faux.requests).toHaveLength(2);
    expect(JSON.stringify(sentMessages(faux.requests[0]))).not.toContain("other file");
    const second = JSON.stringify(sentMessages(faux.requests[1]));
    expect(second.indexOf('"tool_use_id":"b"')).toBeGreaterThan(-1);
    expect(second.indexOf("Stop, use the other file.")).toBeGreaterThan(second.indexOf('"tool_use_id":"b"'));
    // Delivered at the start of turn 2, after turn 1 ended.
    const order = events.flatMap((e) =>
      e.type === "turn_end"
        ? ["turn_end"]
        : e.type === "message_end" && e.message.role === "user"
          ? ["user"]
          : [],
    );
    expect(order).toEqual(["user", "turn_end", "user", "turn_end"]);
    expect(result.unsent).toEqual([]);
  });

  it("queued during the final answer starts another turn", async () => {
    const { agent, faux } = createHarness([{ text: "All done.", delayMs: 1 }, { text: "Ok, also that." }]);
    let steered = false;
    agent.subscribe((e) => {
      if (e.type === "message_update" && !steered) {
        steered = true;
        agent.steer("one more thing");
      }
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.turns).toBe(2);
    expect(faux.requests).toHaveLength(2);
    expect(JSON.stringify(sentMessages(faux.requests[1]))).toContain("one more thing");
  });
});

describe("follow-up", () => {
  it("waits until the agent would otherwise stop", async () => {
    let agentRef: Agent | undefined;
    const queueing = echoTool("queue", {
      execute: async (args) => {
        expect(agentRef!.followUp("and then the docs").isOk()).toBe(true);
        return { content: [{ type: "text", text: `echo:${args.value}` }] };
      },
    });
    const { agent, faux } = createHarness(
      [
        { toolCalls: [{ name: "queue", arguments: { value: "x" } }] },
        { text: "Code done." },
        { text: "Docs done." },
      ],
      { tools: [queueing] },
    );
    agentRef = agent;
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(faux.requests).toHaveLength(3);
    expect(JSON.stringify(sentMessages(faux.requests[1]))).not.toContain("and then the docs");
    const last = sentMessages(faux.requests[2]).at(-1);
    expect(last?.role).toBe("user");
    expect(JSON.stringify(last?.content)).toContain("and then the docs");
    expect(result.stopReason).toBe("stop");
    expect(result.turns).toBe(3);
    expect(result.unsent).toEqual([]);
  });

  it("that max turns prevents is returned unsent", async () => {
    const { agent } = createHarness([{ text: "done", delayMs: 1 }], { maxTurns: 1 });
    agent.subscribe((e) => {
      if (e.type === "message_start" && e.message.role === "assistant") agent.followUp("later");
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("max_turns");
    expect(result.unsent).toMatchObject([{ role: "user", content: "later" }]);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
