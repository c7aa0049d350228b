// Activation isolates extensions: each activates alone, in order; a failure (a throw or a missed
// deadline) rolls back that extension only — nothing of it registered — and the others work.
import {
  type CatalogEntry,
  defineExtension,
  type ExtensionDefinition,
  HOOK_NAMES,
  Type,
} from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import type { CommandRegistry } from "../../src/index.js";
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

const extensionCommands = (host: { commands: CommandRegistry }) =>
  host.commands
    .list()
    .filter((c) => c.source.kind !== "builtin")
    .map((c) => c.name);

/** Only the three healthy extensions are registered: nothing of #3 is, and the others all work. */
async function expectAllButThree(host: Awaited<ReturnType<typeof startHost>>["host"], log: string[]) {
  expect(host.extensionIds).toEqual(["ext-1", "ext-2", "ext-4"]);
  expect(host.tools().map((t) => t.name)).toEqual(["Tool1", "Tool2", "Tool4", "SearchTools", "ExecuteTool"]);
  expect(extensionCommands(host)).toEqual(["cmd-1", "cmd-2", "cmd-4"]);
  expect(host.systemPromptText()).toEqual(["prompt of 1", "prompt of 2", "prompt of 4"]);
  await host.catalogs.refresh();
  expect(Object.keys(host.catalogs.inventory())).toEqual(["ext-1", "ext-2", "ext-4"]);
  const before = log.length;
  await host.notify("runEnd", { stopReason: "stop", turns: 1 });
  expect(log.slice(before)).toEqual(["runEnd 1", "runEnd 2", "runEnd 4"]);
  expect(await host.beforeModelCall(1)).toBe("context of 1\n\ncontext of 2\n\ncontext of 4");
}

describe("activation isolation", () => {
  it("a throw in #3 rolls back #3 alone with one error; #1, #2 and #4 keep working", async () => {
    const { log, definitions } = fourExtensions(async () => {
      throw new Error("database unreachable");
    });
    const { host, diagnostics } = await startHost(definitions);
    expect(log).toEqual(["activate 1", "activate 2", "activate 3", "activate 4"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "ext-3", level: "error" });
    expect(diagnostics[0]!.message).toContain("database unreachable");
    expect(host.failures).toEqual([expect.objectContaining({ extensionId: "ext-3", required: false })]);
    await expectAllButThree(host, log);
  });

  it("an activate that never resolves hits the deadline and is rolled back the same way", async () => {
    const { log, definitions } = fourExtensions(() => never());
    const { host, diagnostics } = await startHost(definitions, { hookDeadlineMs: 20 });
    expect(log).toEqual(["activate 1", "activate 2", "activate 3", "activate 4"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "ext-3", level: "error" });
    // Activation gets twice the hook deadline.
    expect(diagnostics[0]!.message).toContain("did not finish within 40 ms");
    await expectAllButThree(host, log);
  });

  it("commands and catalogs added while activating are dropped when activation then fails", async () => {
    const failing = defineExtension({
      id: "half",
      lifecycle: {
        activate: (ctx) => {
          expect(ctx.commands.add({ name: "half-cmd", description: "d", run: () => undefined })).toEqual({
            ok: true,
          });
          expect(ctx.catalogs.add({ id: "half-cat", group: "half", discover: () => [] })).toEqual({
            ok: true,
          });
          throw new Error("late failure");
        },
      },
    }) as ExtensionDefinition;
    const healthy = defineExtension({
      id: "ok",
      lifecycle: {
        activate: (ctx) => {
          ctx.commands.add({ name: "ok-cmd", description: "d", run: () => ({ message: "ran" }) });
        },
      },
    }) as ExtensionDefinition;
    const { host } = await startHost([failing, healthy]);
    expect(extensionCommands(host)).toEqual(["ok-cmd"]);
    expect(host.catalogs.isEmpty).toBe(true);
    // The name half tried to take stays free for a later add.
    const ok = host.runtimeOf("ok")!;
    expect(ok.commands.add({ name: "half-cmd", description: "d", run: () => undefined })).toEqual({
      ok: true,
    });
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
    expect(extensionCommands(host)).toEqual(["cmd-1", "cmd-2", "cmd-3", "cmd-4"]);
    expect(await host.beforeModelCall(1)).toBe(
      "context of 1\n\ncontext of 2\n\ncontext of 3\n\ncontext of 4",
    );
    log.length = 0;
    await host.shutdown("exit");
    expect(log).toEqual(["deactivate 4", "deactivate 3", "deactivate 2", "deactivate 1"]);
    expect(host.extensionIds).toEqual([]);
  });

  it("a deactivate that throws at shutdown is reported and the others still deactivate", async () => {
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
        lifecycle: { activate: () => undefined, deactivate: () => void log.push("c") },
      }),
    ] as ExtensionDefinition[];
    const { host, diagnostics } = await startHost(definitions);
    await host.shutdown("exit");
    expect(log).toEqual(["c", "a"]);
    expect(diagnostics.map((d) => [d.extensionId, d.level])).toEqual([["b", "warning"]]);
    expect(diagnostics[0]!.message).toContain("stuck socket");
    expect(host.extensionIds).toEqual([]);
  });
});

describe("an activation that finishes after its deadline", () => {
  it("has what it opened released: deactivate runs with the instance it returned", async () => {
    const log: string[] = [];
    let finish!: () => void;
    const slow = defineExtension({
      id: "slow",
      lifecycle: {
        // Ignores its signal, as a connect that does not take one would.
        activate: () =>
          new Promise<{ connection: string }>((resolve) => {
            finish = () => resolve({ connection: "conn-1" });
          }),
        deactivate: (runtime) => {
          log.push(`deactivate ${(runtime.instance as { connection: string }).connection}`);
        },
      },
    }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([slow], { hookDeadlineMs: 10 });
    expect(host.extensionIds).toEqual([]);
    expect(diagnostics[0]!.message).toContain("timed out");
    finish();
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(["deactivate conn-1"]);
    // Nothing of it is active, before or after.
    expect(host.extensionIds).toEqual([]);
  });
});

describe("registrations made while activating", () => {
  it("a malformed catalog passed to runtime.catalogs.add is refused as a value; the extension and the host go on", async () => {
    const answers: unknown[] = [];
    const sloppy = defineExtension({
      id: "sloppy",
      lifecycle: {
        activate: (runtime) => {
          answers.push(runtime.catalogs.add(undefined as never));
          answers.push(runtime.catalogs.add({ id: "no-discover" } as never));
        },
      },
    }) as ExtensionDefinition;
    const { host } = await startHost([sloppy]);
    expect(host.extensionIds).toEqual(["sloppy"]);
    expect(answers).toEqual([
      { ok: false, message: "a catalog needs an id (a string) and a discover function" },
      { ok: false, message: "a catalog needs an id (a string) and a discover function" },
    ]);
    expect(host.registry.isEmpty).toBe(true);
  });
});

describe("the tools an activated extension offers", () => {
  const tool = (name: string) => simpleTool(name);

  it("a tools() that throws once given the runtime rolls that extension back alone", async () => {
    const log: string[] = [];
    const fragile = defineExtension({
      id: "fragile",
      lifecycle: { deactivate: () => void log.push("deactivate fragile") },
      tools: (_t, runtime) => {
        if (runtime) throw new Error("no key configured");
        return [tool("Fragile")];
      },
    }) as ExtensionDefinition;
    const fine = defineExtension({ id: "fine", tools: () => [tool("Fine")] }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([fragile, fine]);
    expect(host.extensionIds).toEqual(["fine"]);
    expect(host.tools().map((t) => t.name)).toEqual(["Fine"]);
    expect(diagnostics.map((d) => [d.extensionId, d.message])).toEqual([
      ["fragile", "tools could not be listed: no key configured (test-1); not loaded"],
    ]);
    expect(log).toEqual(["deactivate fragile"]);
  });

  it("a tool offered with the runtime but never declared is left out: its name was never checked", async () => {
    const sneaky = defineExtension({
      id: "sneaky",
      tools: (_t, runtime) => (runtime ? [tool("Declared"), tool("Bash")] : [tool("Declared")]),
    }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([sneaky]);
    expect(host.tools().map((t) => t.name)).toEqual(["Declared"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'tool "Bash" is offered but was not declared (return every tool you may offer when tools() gets no runtime); left out',
    ]);
  });
});

describe("hooks as declared", () => {
  it("a hook that is not a function refuses its extension; a misspelt hook name is said once", async () => {
    const broken = defineExtension({
      id: "broken",
      hooks: { runEnd: 42 as never },
    }) as ExtensionDefinition;
    const typo = defineExtension({
      id: "typo",
      hooks: { beforeToolcall: () => ({ action: "block", reason: "never asked" }) } as never,
    }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([broken, typo]);
    expect(host.extensionIds).toEqual(["typo"]);
    // The observer path runs without tripping over the broken one.
    await host.notify("runEnd", { stopReason: "stop", turns: 1 });
    expect(diagnostics.map((d) => [d.extensionId, d.level, d.message])).toEqual([
      ["broken", "error", "hook runEnd is not a function (test-1); not loaded"],
      [
        "typo",
        "warning",
        `unknown hook "beforeToolcall", so it never runs; hooks are: ${HOOK_NAMES.join(", ")}`,
      ],
    ]);
  });
});
