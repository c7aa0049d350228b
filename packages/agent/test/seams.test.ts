// The three seams: prepareRequest (per-request copy), beforeToolCall (continue/rewrite/block),
// afterToolCall (observe/patch), and what happens when one of them throws.
import type { Context } from "@keel/ai";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../src/index.js";
import { createHarness, echoTool, sentMessages, text, toolResults } from "./helpers.js";

const oneEcho = (value: string) => [
  { toolCalls: [{ id: "e1", name: "echo", arguments: { value } }] },
  { text: "ok" },
];

function recordingEcho(seen: unknown[]) {
  return echoTool("echo", {
    execute: async (args) => {
      seen.push(args);
      return { content: [{ type: "text", text: `echo:${args.value}` }] };
    },
  });
}

describe("prepareRequest", () => {
  it("appends to the request only: the model sees it, the history does not", async () => {
    const turns: number[] = [];
    const { agent, faux } = createHarness(oneEcho("x"), {
      tools: [echoTool()],
      prepareRequest: (context: Context, { turn }) => {
        turns.push(turn);
        context.messages.push({ role: "user", content: `<reminder turn=${turn}>`, timestamp: 0 });
        return context;
      },
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(turns).toEqual([1, 2]);
    expect(JSON.stringify(sentMessages(faux.requests[0]))).toContain("<reminder turn=1>");
    const second = JSON.stringify(sentMessages(faux.requests[1]));
    expect(second).toContain("<reminder turn=2>");
    expect(second).not.toContain("<reminder turn=1>");
    expect(JSON.stringify(agent.messages)).not.toContain("reminder");
    expect(JSON.stringify(result.messages)).not.toContain("reminder");
  });

  it("that throws ends the run with an internal error before any request", async () => {
    const { agent, faux } = createHarness([{ text: "never" }], {
      prepareRequest: () => {
        throw new Error("hook bug");
      },
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("error");
    expect(result.error).toEqual({ type: "internal", message: "prepareRequest failed: hook bug" });
    expect(faux.requests).toHaveLength(0);
    expect(result.messages.map((m) => m.role)).toEqual(["user"]);
  });
});

describe("beforeToolCall", () => {
  it("block: the tool does not run and the reason is the error result", async () => {
    const seen: unknown[] = [];
    const { agent, faux } = createHarness(oneEcho("rm -rf"), {
      tools: [recordingEcho(seen)],
      beforeToolCall: () => ({ action: "block", reason: "Denied by policy: echo is not allowed here." }),
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(seen).toEqual([]);
    const [blocked] = toolResults(result.messages);
    expect(blocked).toMatchObject({ isError: true, toolCallId: "e1" });
    expect(text(blocked!)).toBe("Denied by policy: echo is not allowed here.");
    expect(faux.requests[1]?.raw).toContain("Denied by policy");
    expect(result.stopReason).toBe("stop");
  });

  it("continue with rewritten arguments: the tool runs with them, and they are what is announced", async () => {
    const seen: unknown[] = [];
    const calls: unknown[] = [];
    const { agent, events } = createHarness(oneEcho("original"), {
      tools: [recordingEcho(seen)],
      beforeToolCall: (call, { tool, turn }) => {
        calls.push({ name: call.name, args: call.arguments, tool: tool.name, turn });
        return { action: "continue", args: { value: "rewritten" } };
      },
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(calls).toEqual([{ name: "echo", args: { value: "original" }, tool: "echo", turn: 1 }]);
    expect(seen).toEqual([{ value: "rewritten" }]);
    expect(text(toolResults(result.messages)[0]!)).toBe("echo:rewritten");
    const start = events.find(
      (e): e is Extract<AgentEvent, { type: "tool_execution_start" }> => e.type === "tool_execution_start",
    );
    expect(start?.args).toEqual({ value: "rewritten" });
    // The assistant message keeps what the model sent: the history is never rewritten.
    expect(JSON.stringify(result.messages[1])).toContain("original");
  });

  it("rewritten arguments are validated again; invalid ones do not run", async () => {
    const seen: unknown[] = [];
    const { agent } = createHarness(oneEcho("fine"), {
      tools: [recordingEcho(seen)],
      beforeToolCall: () => ({ action: "continue", args: { other: true } }),
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(seen).toEqual([]);
    const [error] = toolResults(result.messages);
    expect(error?.isError).toBe(true);
    expect(text(error!)).toContain("rewritten before running and are no longer valid");
    expect(text(error!)).toContain("/value");
  });

  it("that throws (or returns nonsense) fails that call closed, and the loop goes on", async () => {
    const seen: unknown[] = [];
    let call = 0;
    const { agent } = createHarness(
      [
        {
          toolCalls: [
            { name: "echo", arguments: { value: "a" } },
            { name: "echo", arguments: { value: "b" } },
            { name: "echo", arguments: { value: "c" } },
          ],
        },
        { text: "ok" },
      ],
      {
        tools: [recordingEcho(seen)],
        beforeToolCall: () => {
          call++;
          if (call === 1) throw new Error("policy bug");
          if (call === 2) return { action: "maybe" } as never;
          return { action: "continue" };
        },
      },
    );
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    const [a, b, c] = toolResults(result.messages);
    expect(text(a!)).toBe("Not run: beforeToolCall failed for echo: policy bug");
    expect(text(b!)).toBe("Not run: beforeToolCall returned an invalid decision for echo.");
    expect(text(c!)).toBe("echo:c");
    expect(seen).toEqual([{ value: "c" }]);
    expect(result.stopReason).toBe("stop");
  });
});

describe("afterToolCall", () => {
  it("observes every executed call and may patch its result", async () => {
    const observed: unknown[] = [];
    const { agent, faux, events } = createHarness(oneEcho("secret-token"), {
      tools: [echoTool()],
      afterToolCall: (call, result) => {
        observed.push({ args: call.arguments, text: text(result) });
        return {
          ...result,
          content: [{ type: "text", text: text(result).replace("secret-token", "[redacted]") }],
        };
      },
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(observed).toEqual([{ args: { value: "secret-token" }, text: "echo:secret-token" }]);
    expect(text(toolResults(result.messages)[0]!)).toBe("echo:[redacted]");
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end?.type === "tool_execution_end" && text(end.result)).toBe("echo:[redacted]");
    expect(faux.requests[1]?.raw).not.toContain("echo:secret-token");
  });

  it("returning undefined keeps the result", async () => {
    const { agent } = createHarness(oneEcho("x"), { tools: [echoTool()], afterToolCall: () => undefined });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(text(toolResults(result.messages)[0]!)).toBe("echo:x");
  });

  it("that throws withholds the output (fail closed) and the loop goes on", async () => {
    const { agent, faux } = createHarness(oneEcho("secret-token"), {
      tools: [echoTool()],
      afterToolCall: () => {
        throw new Error("redactor bug");
      },
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    const [withheld] = toolResults(result.messages);
    expect(withheld?.isError).toBe(true);
    expect(text(withheld!)).toBe("echo ran, but its result was withheld: afterToolCall failed: redactor bug");
    expect(faux.requests[1]?.raw).not.toContain("echo:secret-token");
    expect(result.stopReason).toBe("stop");
  });

  it("is not called for calls that never ran", async () => {
    const observed: string[] = [];
    const { agent } = createHarness(
      [
        {
          toolCalls: [
            { name: "echo", arguments: {} },
            { name: "ghost", arguments: {} },
          ],
        },
        { text: "ok" },
      ],
      { tools: [echoTool()], afterToolCall: (call) => void observed.push(call.name) },
    );
    await agent.prompt("go");
    expect(observed).toEqual([]);
  });
});
