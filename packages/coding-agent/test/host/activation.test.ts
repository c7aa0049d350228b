// Activation is one transaction: extensions activate in order, and any failure (a throw or a
// missed deadline) deactivates the already active ones in reverse and registers none of the set.
import { type CatalogEntry, defineExtension, type ExtensionDefinition, Type } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import { never, simpleTool, startHost } from "./helpers.js";

function fourExtensions(failing: () => Promise<unknown>) {
  const log: string[] = [];
  const make = (n: number): ExtensionDefinition =>
    defineExtension({
      id: `ext-${n}`,
      lifecycle: {
        activate: async () => {
          log.push(`activate ${n}`);
          if (n === 3) await failing();
          return { n };
        },
        deactivate: () => {
          log.push(`deactivate ${n}`);
        },
      },
      hooks: {
        runEnd: () => {
          log.push(`runEnd ${n}`);
        },
        beforeToolCall: () => ({ action: "block", reason: `blocked by ${n}` }),
        beforeModelCall: () => ({ context: `context of ${n}` }),
      },
      tools: () => [simpleTool(`Tool${n}`)],
      commands: [{ name: `cmd-${n}`, description: "a command", run: () => ({ message: `${n}` }) }],
      catalogs: [
        {
          id: "cat",
          discover: (): CatalogEntry[] => [{ ...simpleTool(`entry${n}`), parameters: Type.Object({}) }],
        },
      ],
      systemPrompt: `prompt of ${n}`,
    }) as ExtensionDefinition;
  return { log, definitions: [1, 2, 3, 4].map(make) };
}

async function expectNothingRegistered(host: Awaited<ReturnType<typeof startHost>>["host"], log: string[]) {
  expect(host.extensionIds).toEqual([]);
  expect(host.tools()).toEqual([]);
  expect(host.commands()).toEqual([]);
  expect(host.systemPromptText()).toEqual([]);
  expect(host.catalogs.isEmpty).toBe(true);
  const before = log.length;
  await host.notify("runEnd", { stopReason: "stop", turns: 1 });
  expect(log.length).toBe(before);
  expect(await host.beforeModelCall(1)).toBeUndefined();
  expect(await host.beforeToolCall({ toolCallId: "c1", toolName: "Read", args: { path: "x" } })).toEqual({
    action: "continue",
    args: { path: "x" },
  });
}

describe("activation rollback", () => {
  it("a throw in #3 deactivates #2 then #1, reports one error and registers nothing", async () => {
    const { log, definitions } = fourExtensions(async () => {
      throw new Error("database unreachable");
    });
    const { host, diagnostics } = await startHost(definitions);
    expect(log).toEqual(["activate 1", "activate 2", "activate 3", "deactivate 2", "deactivate 1"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "ext-3", level: "error" });
    expect(diagnostics[0]!.message).toContain("database unreachable");
    expect(diagnostics[0]!.message).toContain("2 rolled back");
    await expectNothingRegistered(host, log);
  });

  it("an activate that never resolves hits the deadline and rolls back the same way", async () => {
    const { log, definitions } = fourExtensions(() => never());
    const { host, diagnostics } = await startHost(definitions, { hookDeadlineMs: 20 });
    expect(log).toEqual(["activate 1", "activate 2", "activate 3", "deactivate 2", "deactivate 1"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "ext-3", level: "error" });
    // Activation gets twice the hook deadline.
    expect(diagnostics[0]!.message).toContain("did not finish within 40 ms");
    await expectNothingRegistered(host, log);
  });

  it("when all activate, all are registered in order and shutdown deactivates in reverse", async () => {
    const { log, definitions } = fourExtensions(async () => undefined);
    const { host, diagnostics } = await startHost(definitions);
    expect(diagnostics).toEqual([]);
    expect(host.extensionIds).toEqual(["ext-1", "ext-2", "ext-3", "ext-4"]);
    expect(host.tools().map((t) => t.name)).toEqual([
      "Tool1",
      "Tool2",
      "Tool3",
      "Tool4",
      "SearchTools",
      "ExecuteTool",
    ]);
    expect(host.commands().map((c) => c.name)).toEqual(["cmd-1", "cmd-2", "cmd-3", "cmd-4"]);
    expect(await host.beforeModelCall(1)).toBe(
      "context of 1\n\ncontext of 2\n\ncontext of 3\n\ncontext of 4",
    );
    log.length = 0;
    await host.shutdown("exit");
    expect(log).toEqual(["deactivate 4", "deactivate 3", "deactivate 2", "deactivate 1"]);
    expect(host.extensionIds).toEqual([]);
  });

  it("a deactivate that throws during rollback is reported and the rollback goes on", async () => {
    const log: string[] = [];
    const definitions = [
      defineExtension({
        id: "a",
        lifecycle: { activate: () => undefined, deactivate: () => void log.push("a") },
      }),
      defineExtension({
        id: "b",
        lifecycle: {
          activate: () => undefined,
          deactivate: () => {
            throw new Error("stuck socket");
          },
        },
      }),
      defineExtension({
        id: "c",
        lifecycle: {
          activate: () => {
            throw new Error("no");
          },
        },
      }),
    ] as ExtensionDefinition[];
    const { host, diagnostics } = await startHost(definitions);
    expect(log).toEqual(["a"]);
    expect(diagnostics.map((d) => [d.extensionId, d.level])).toEqual([
      ["b", "warning"],
      ["c", "error"],
    ]);
    expect(diagnostics[0]!.message).toContain("stuck socket");
    expect(host.extensionIds).toEqual([]);
  });
});
