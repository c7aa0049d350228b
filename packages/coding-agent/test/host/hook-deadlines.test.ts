// Hook dispatch at the host: observers that hang or throw are reported once and the others run;
// policies (beforeToolCall, beforeAgentStart) that hang or throw fail closed with a reason.
// The kernel does not expose hookDeadlineMs, so deadlines are tested here with a 30 ms one.
import { defineExtension, type ExtensionDefinition, textResult } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import { never, startHost } from "./helpers.js";

const call = { toolCallId: "c1", toolName: "Bash", args: { command: "ls" } };

describe("hook deadlines", () => {
  it("an observer that never resolves is reported once per hook and later handlers still run", async () => {
    const seen: string[] = [];
    const { host, diagnostics } = await startHost(
      [
        defineExtension({ id: "hang", hooks: { turnStart: () => never(), runEnd: () => never() } }),
        defineExtension({
          id: "after",
          hooks: {
            turnStart: (e) => void seen.push(`turn ${e.turn}`),
            runEnd: () => void seen.push("runEnd"),
          },
        }),
      ] as ExtensionDefinition[],
      { hookDeadlineMs: 30 },
    );
    await host.notify("turnStart", { turn: 1 });
    await host.notify("turnStart", { turn: 2 });
    await host.notify("runEnd", { stopReason: "stop", turns: 2 });
    expect(seen).toEqual(["turn 1", "turn 2", "runEnd"]);
    expect(diagnostics.map((d) => `${d.extensionId} ${d.level} ${d.message}`)).toEqual([
      "hang warning turnStart hook timeout: did not finish within 30 ms",
      "hang warning runEnd hook timeout: did not finish within 30 ms",
    ]);
  });

  it("a throwing observer is reported once, however often it throws", async () => {
    const { host, diagnostics } = await startHost([
      defineExtension({
        id: "buggy",
        hooks: {
          turnEnd: () => {
            throw new Error("cannot read x of undefined");
          },
        },
      }) as ExtensionDefinition,
    ]);
    for (let i = 0; i < 3; i++) await host.notify("turnEnd", { turn: i });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toBe("turnEnd hook threw: cannot read x of undefined");
  });

  it("a beforeToolCall that never resolves blocks the call with a reason naming the timeout", async () => {
    const { host, diagnostics } = await startHost(
      [
        defineExtension({
          id: "slow-policy",
          hooks: { beforeToolCall: () => never() },
        }) as ExtensionDefinition,
      ],
      { hookDeadlineMs: 30 },
    );
    const decision = await host.beforeToolCall(call);
    expect(decision.action).toBe("block");
    expect(decision.action === "block" && decision.reason).toBe(
      "Blocked: extension slow-policy's policy timed out (did not finish within 30 ms).",
    );
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "slow-policy", level: "error" });
  });

  it("a throwing beforeToolCall blocks (fail closed); a block stops the chain", async () => {
    const reached: string[] = [];
    const { host } = await startHost([
      defineExtension({
        id: "thrower",
        hooks: {
          beforeToolCall: () => {
            throw new Error("policy file unreadable");
          },
        },
      }),
      defineExtension({ id: "later", hooks: { beforeToolCall: () => void reached.push("later") } }),
    ] as ExtensionDefinition[]);
    const decision = await host.beforeToolCall(call);
    expect(decision).toEqual({
      action: "block",
      reason: "Blocked: extension thrower's policy failed (policy file unreadable).",
    });
    expect(reached).toEqual([]);
  });

  it("beforeToolCall rewrites chain and each policy sees the previous one's args", async () => {
    const seen: unknown[] = [];
    const { host } = await startHost([
      defineExtension({
        id: "rewrite",
        hooks: { beforeToolCall: (e) => ({ action: "continue", args: { ...e.args, command: "ls -la" } }) },
      }),
      defineExtension({ id: "observe", hooks: { beforeToolCall: (e) => void seen.push(e.args) } }),
    ] as ExtensionDefinition[]);
    expect(await host.beforeToolCall(call)).toEqual({ action: "continue", args: { command: "ls -la" } });
    expect(seen).toEqual([{ command: "ls -la" }]);
  });

  it("a beforeAgentStart that hangs refuses the run; a beforeModelCall that hangs only loses its context", async () => {
    const { host, diagnostics } = await startHost(
      [
        defineExtension({
          id: "gate",
          hooks: { beforeAgentStart: () => never(), beforeModelCall: () => never() },
        }),
        defineExtension({
          id: "reminder",
          hooks: { beforeModelCall: () => ({ context: "  3 todos open  " }) },
        }),
      ] as ExtensionDefinition[],
      { hookDeadlineMs: 30 },
    );
    const admitted = await host.beforeAgentStart("hello");
    expect(admitted.isErr() && admitted.error).toMatchObject({ type: "extension" });
    expect(admitted.isErr() && admitted.error.message).toContain("beforeAgentStart timeout");
    expect(await host.beforeModelCall(1)).toBe("3 todos open");
    expect(diagnostics.map((d) => d.level)).toEqual(["error", "warning"]);
  });

  it("afterToolCall patches chain; a failing patcher keeps the result as it was", async () => {
    const { host, diagnostics } = await startHost([
      defineExtension({
        id: "redact",
        hooks: {
          afterToolCall: (e) => ({
            result: textResult(
              (e.result.content[0] as { text: string }).text.replace("secret", "[redacted]"),
            ),
          }),
        },
      }),
      defineExtension({
        id: "broken",
        hooks: {
          afterToolCall: () => {
            throw new Error("boom");
          },
        },
      }),
    ] as ExtensionDefinition[]);
    const result = await host.afterToolCall({ ...call, result: textResult("the secret is 42") });
    expect(result).toEqual(textResult("the [redacted] is 42"));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toBe("afterToolCall hook threw: boom");
  });
});
