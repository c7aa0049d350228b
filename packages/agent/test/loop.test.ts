// The turn cycle end to end through the faux Anthropic provider: events, stop reasons, errors.
import { addUsage, emptyUsage } from "@keel/ai";
import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../src/index.js";
import { createHarness, echoTool, sentMessages, text, toolResults } from "./helpers.js";

/** Event types with each run of message_update collapsed into one, and the message role attached. */
function shape(events: readonly AgentEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const label =
      e.type === "message_start" || e.type === "message_end" || e.type === "message_update"
        ? `${e.type}:${e.message.role}`
        : e.type;
    if (label === out[out.length - 1] && e.type === "message_update") continue;
    out.push(label);
  }
  return out;
}

describe("a full run", () => {
  it("emits the events of a tool turn and a final turn in order, all JSON-safe", async () => {
    const { agent, events } = createHarness(
      [
        { text: "Let me look.", toolCalls: [{ id: "t1", name: "echo", arguments: { value: "hi" } }] },
        { text: "Done." },
      ],
      { tools: [echoTool()] },
    );
    const result = (await agent.prompt("hello"))._unsafeUnwrap();

    expect(shape(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_update:assistant",
      "message_end:assistant",
      "tool_execution_start",
      "tool_execution_end",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "message_start:assistant",
      "message_update:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(
      events.filter((e) => e.type === "turn_start").map((e) => (e.type === "turn_start" ? e.turn : 0)),
    ).toEqual([1, 2]);
    const firstTurnEnd = events.find((e) => e.type === "turn_end");
    expect(firstTurnEnd?.type === "turn_end" && firstTurnEnd.toolResults.map((r) => text(r))).toEqual([
      "echo:hi",
    ]);
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);

    expect(result.stopReason).toBe("stop");
    expect(result.turns).toBe(2);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(agent.messages).toEqual(result.messages);
    expect(result.unsent).toEqual([]);
    const usage = result.messages.reduce(
      (u, m) => (m.role === "assistant" ? addUsage(u, m.usage) : u),
      emptyUsage(),
    );
    expect(result.usage).toEqual(usage);
    expect(result.usage.output).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({ type: "agent_end", result });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it("keeps the history across prompts and sends it again", async () => {
    const { agent, faux } = createHarness([{ text: "one" }, { text: "two" }]);
    await agent.prompt("first");
    const second = (await agent.prompt("second"))._unsafeUnwrap();
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(agent.messages).toHaveLength(4);
    expect(sentMessages(faux.requests[1]).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("replaceMessages swaps the history the next request is built from", async () => {
    const { agent, faux } = createHarness([{ text: "one" }, { text: "two" }]);
    await agent.prompt("first");
    agent.replaceMessages([{ role: "user", content: "summary of earlier work", timestamp: 1 }]);
    await agent.prompt("next");
    expect(JSON.stringify(sentMessages(faux.requests[1]))).not.toContain("first");
    expect(JSON.stringify(sentMessages(faux.requests[1]))).toContain("summary of earlier work");
  });
});

describe("stop reasons", () => {
  it("ends with max_turns when the model keeps calling tools", async () => {
    const loop = { toolCalls: [{ name: "echo", arguments: { value: "again" } }] };
    const { agent, faux } = createHarness([], { tools: [echoTool()], maxTurns: 3 });
    faux.setScenario({ turns: [], fallback: loop });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("max_turns");
    expect(result.turns).toBe(3);
    expect(faux.requests).toHaveLength(3);
    // The last batch still ran: every tool call has its result.
    expect(toolResults(result.messages)).toHaveLength(3);
  });

  it("a provider error ends the run with that reason and still emits the failed message", async () => {
    const { agent, events } = createHarness([{ kind: "error", status: 400, message: "bad request body" }]);
    const result = (await agent.prompt("hi"))._unsafeUnwrap();
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatchObject({ type: "http", status: 400 });
    const failed = result.messages.at(-1);
    expect(failed).toMatchObject({ role: "assistant", stopReason: "error" });
    expect(events).toContainEqual({ type: "message_end", message: failed });
    expect(events.map((e) => e.type).slice(-2)).toEqual(["turn_end", "agent_end"]);
    expect(agent.messages.at(-1)).toBe(failed);
  });

  it("a context overflow ends the run with context_overflow", async () => {
    const { agent } = createHarness([{ kind: "context_overflow" }]);
    const result = (await agent.prompt("hi"))._unsafeUnwrap();
    expect(result.stopReason).toBe("context_overflow");
    expect(result.error?.type).toBe("context_overflow");
  });

  it("reports length when the model hit its output limit", async () => {
    const { agent } = createHarness([{ text: "cut off", stopReason: "length" }]);
    expect((await agent.prompt("hi"))._unsafeUnwrap().stopReason).toBe("length");
  });
});

describe("tool call errors go back to the model and the loop continues", () => {
  it("invalid arguments become an error result naming the problem", async () => {
    let ran = false;
    const tool = echoTool("echo", {
      execute: async () => {
        ran = true;
        return { content: [{ type: "text", text: "should not run" }] };
      },
    });
    const { agent, faux } = createHarness(
      [{ toolCalls: [{ id: "bad", name: "echo", arguments: { wrong: 1 } }] }, { text: "I will fix it." }],
      { tools: [tool] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(ran).toBe(false);
    const [error] = toolResults(result.messages);
    expect(error?.isError).toBe(true);
    expect(text(error!)).toContain("Invalid arguments for tool echo");
    expect(text(error!)).toContain("/value");
    expect(result.stopReason).toBe("stop");
    expect(faux.requests[1]?.raw).toContain('"is_error":true');
  });

  it("a call whose arguments are not JSON fails alone: its siblings run, and the model retries it", async () => {
    const ran: string[] = [];
    const tool = echoTool("echo", {
      execute: async ({ value }) => {
        ran.push(value);
        return { content: [{ type: "text", text: `echo:${value}` }] };
      },
    });
    const { agent, faux, events } = createHarness(
      [
        {
          toolCalls: [
            { id: "a", name: "echo", arguments: { value: "one" } },
            { id: "bad", name: "echo", arguments: '{"value": "two",' },
            { id: "c", name: "echo", arguments: { value: "three" } },
          ],
        },
        { toolCalls: [{ id: "again", name: "echo", arguments: { value: "two" } }] },
        { text: "All three done." },
      ],
      { tools: [tool] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("stop");
    expect(result.error).toBeUndefined();
    expect(ran).toEqual(["one", "three", "two"]);
    const [a, bad, c, again] = toolResults(result.messages);
    expect([a, bad, c, again].map((r) => [r?.toolCallId, r?.isError])).toEqual([
      ["a", false],
      ["bad", true],
      ["c", false],
      ["again", false],
    ]);
    expect(text(bad!)).toMatch(
      /^Not run: the arguments of this echo call were not valid JSON \(.+; the arguments began: \{"value": "two",\)\. Send the call again/,
    );
    // Every call got its start and end, the malformed one included, in call order.
    const ended = events.flatMap((e) => (e.type === "tool_execution_end" ? [e.toolCallId] : []));
    expect(ended).toEqual(["a", "bad", "c", "again"]);
    // The model saw the error for that call (and its call replayed with empty arguments).
    const second = faux.requests[1]?.body.messages as { content: unknown }[];
    expect(JSON.stringify(second)).toContain(
      '"tool_use_id":"bad","content":[{"type":"text","text":"Not run:',
    );
    expect(JSON.stringify(second)).toContain('"id":"bad","name":"echo","input":{}');
  });

  it("an unknown tool becomes an error result listing the tools that exist", async () => {
    const { agent } = createHarness(
      [
        {
          toolCalls: [
            { name: "nope", arguments: {} },
            { name: "echo", arguments: { value: "x" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [echoTool()] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    const [unknown, echoed] = toolResults(result.messages);
    expect(unknown).toMatchObject({ toolName: "nope", isError: true });
    expect(text(unknown!)).toBe('Tool "nope" does not exist. Available tools: echo.');
    expect(text(echoed!)).toBe("echo:x");
    expect(result.stopReason).toBe("stop");
  });

  it("a tool that throws or returns garbage becomes an error result", async () => {
    const throws = echoTool("throws", {
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const garbage = echoTool("garbage", { execute: async () => "not a result" as never });
    const { agent } = createHarness(
      [
        {
          toolCalls: [
            { name: "throws", arguments: { value: "a" } },
            { name: "garbage", arguments: { value: "b" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [throws, garbage] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    const [a, b] = toolResults(result.messages);
    expect(a).toMatchObject({ isError: true });
    expect(text(a!)).toBe("Tool throws failed: disk on fire");
    expect(b).toMatchObject({ isError: true });
    expect(text(b!)).toContain("returned an invalid result");
    expect(result.stopReason).toBe("stop");
  });
});

describe("the Agent's contract", () => {
  it("a second prompt while running is a busy error, and the first run is unaffected", async () => {
    const { agent } = createHarness([{ text: "slow", delayMs: 5 }]);
    const first = agent.prompt("one");
    expect(agent.isRunning).toBe(true);
    const second = await agent.prompt("two");
    expect(second._unsafeUnwrapErr().type).toBe("busy");
    expect((await first)._unsafeUnwrap().stopReason).toBe("stop");
    expect(agent.isRunning).toBe(false);
  });

  it("steer and followUp while idle are not_running errors", () => {
    const { agent } = createHarness([]);
    expect(agent.steer("x")._unsafeUnwrapErr().type).toBe("not_running");
    expect(agent.followUp("x")._unsafeUnwrapErr().type).toBe("not_running");
  });

  it("a listener that throws does not break the run or the other listeners", async () => {
    const reported: string[] = [];
    const { agent, events } = createHarness(
      [{ toolCalls: [{ name: "echo", arguments: { value: "x" } }] }, { text: "ok" }],
      { tools: [echoTool()], onListenerError: (_error, event) => reported.push(event.type) },
    );
    agent.subscribe(() => {
      throw new Error("listener bug");
    });
    agent.subscribe(async () => {
      throw new Error("async listener bug");
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    await new Promise((r) => setImmediate(r));
    expect(result.stopReason).toBe("stop");
    expect(events.at(-1)?.type).toBe("agent_end");
    // Both failing listeners were reported for every event; the recording one saw all of them.
    expect(reported).toHaveLength(events.length * 2);
  });

  it("without onListenerError a failing listener is reported once as a process warning", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const { agent } = createHarness([{ text: "ok" }]);
      agent.subscribe(() => {
        throw new Error("listener bug");
      });
      expect((await agent.prompt("go"))._unsafeUnwrap().stopReason).toBe("stop");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain("listener bug");
    } finally {
      warn.mockRestore();
    }
  });

  it("an onListenerError that throws too falls back to one process warning naming both", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const { agent } = createHarness([{ text: "ok" }], {
        onListenerError: () => {
          throw new Error("reporter bug");
        },
      });
      agent.subscribe(() => {
        throw new Error("listener bug");
      });
      expect((await agent.prompt("go"))._unsafeUnwrap().stopReason).toBe("stop");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/listener bug.*reporter bug/);
    } finally {
      warn.mockRestore();
    }
  });

  it("unsubscribe stops the events", async () => {
    const { agent } = createHarness([{ text: "ok" }]);
    const seen: string[] = [];
    const off = agent.subscribe((e) => {
      seen.push(e.type);
    });
    off();
    await agent.prompt("go");
    expect(seen).toEqual([]);
  });

  it("a listener on agent_end may start the next run", async () => {
    const { agent } = createHarness([{ text: "one" }, { text: "two" }]);
    let next: ReturnType<typeof agent.prompt> | undefined;
    const off = agent.subscribe((e) => {
      if (e.type === "agent_end") {
        off();
        next = agent.prompt("again");
      }
    });
    await agent.prompt("first");
    expect(next).toBeDefined();
    expect((await next!)._unsafeUnwrap().stopReason).toBe("stop");
    expect(agent.messages).toHaveLength(4);
  });
});

describe("a tool whose schema the validator cannot handle", () => {
  it("fails that call only; the history stays valid and the loop goes on", async () => {
    // A TypeBox kind the compiler does not know: compiling the check throws.
    const broken = { [Symbol.for("TypeBox.Kind")]: "NoSuchKind", type: "object" };
    const raw = echoTool("raw", { parameters: broken as never });
    const { agent } = createHarness(
      [
        {
          toolCalls: [
            { name: "raw", arguments: {} },
            { name: "echo", arguments: { value: "x" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: [raw, echoTool()] },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    const [failed, echoed] = toolResults(result.messages);
    expect(failed?.isError).toBe(true);
    expect(text(failed!)).toContain("Not run: raw could not be prepared");
    expect(text(echoed!)).toBe("echo:x");
    expect(result.stopReason).toBe("stop");
  });
});
