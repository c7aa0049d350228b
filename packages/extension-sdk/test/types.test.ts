// Type tests for the public API: config and state types flow from their schemas into runtime.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  defineExtension,
  definitionFromFactory,
  type ExtensionRuntime,
  headlessUI,
  type KeelAPI,
  listTools,
  Type,
  textResult,
} from "../src/index.js";

const hookContext = { signal: new AbortController().signal };

const todoLike = defineExtension({
  id: "typed",
  configuration: { scope: "layered", schema: Type.Object({ limit: Type.Number() }), default: { limit: 3 } },
  sessionState: { schema: Type.Object({ items: Type.Array(Type.String()) }), default: { items: [] } },
  lifecycle: {
    activate: (ctx) => {
      expectTypeOf(ctx.config.limit).toEqualTypeOf<number>();
      return { startedAt: 1 };
    },
  },
  hooks: {
    beforeModelCall: (_event, runtime) => {
      expectTypeOf(runtime.state.get().items).toEqualTypeOf<string[]>();
      expectTypeOf(runtime.instance.startedAt).toEqualTypeOf<number>();
      return { context: `items: ${runtime.state.get().items.length}` };
    },
  },
  tools: (tool) => [
    tool({
      name: "Add",
      description: "Adds an item.",
      parameters: Type.Object({ item: Type.String() }),
      async execute(args, _ctx, runtime) {
        expectTypeOf(args.item).toEqualTypeOf<string>();
        runtime.state.update((s) => ({ items: [...s.items, args.item] }));
        return textResult("added");
      },
    }),
  ],
});

describe("extension-sdk types", () => {
  it("keeps the definition as written and lists tools without activation", () => {
    expect(todoLike.id).toBe("typed");
    expect(listTools(todoLike).map((t) => t.name)).toEqual(["Add"]);
  });

  it("lists every tool for validation and the runtime's choice once activated", () => {
    const optional = defineExtension({
      id: "optional",
      configuration: {
        scope: "user",
        schema: Type.Object({ search: Type.Boolean() }),
        default: { search: false },
      },
      tools: (tool, runtime) => {
        const fetch = tool({
          name: "Fetch",
          description: "Fetches.",
          parameters: Type.Object({}),
          execute: async () => textResult("fetched"),
        });
        const search = tool({
          name: "Search",
          description: "Searches.",
          parameters: Type.Object({}),
          execute: async () => textResult("searched"),
        });
        // Typed from the config schema; undefined while the host validates.
        if (runtime !== undefined) expectTypeOf(runtime.config.search).toEqualTypeOf<boolean>();
        return runtime === undefined || runtime.config.search ? [fetch, search] : [fetch];
      },
    });
    const runtimeWith = (search: boolean) =>
      ({ config: { search } }) as unknown as ExtensionRuntime<{ search: boolean }>;
    expect(listTools(optional).map((t) => t.name)).toEqual(["Fetch", "Search"]);
    expect(listTools(optional, runtimeWith(false)).map((t) => t.name)).toEqual(["Fetch"]);
    expect(listTools(optional, runtimeWith(true)).map((t) => t.name)).toEqual(["Fetch", "Search"]);
  });

  it("rejects hooks that do not exist at compile time", () => {
    defineExtension({
      id: "bad",
      hooks: {
        // @ts-expect-error unknown hook name
        onSomething: () => {},
      },
    });
  });

  it("headless UI answers unsupported instead of hanging", async () => {
    const ui = headlessUI();
    expect(ui.supports.confirm).toBe(false);
    await expect(ui.confirm("Proceed?")).resolves.toEqual({ status: "unsupported" });
  });

  it("turns a factory into a definition, composing handlers of one hook", async () => {
    const calls: string[] = [];
    const result = await definitionFromFactory("one-file", (keel: KeelAPI) => {
      keel.on("beforeModelCall", () => ({ context: "a" }));
      keel.on("beforeModelCall", () => ({ context: "b" }));
      keel.on("runEnd", (e) => {
        calls.push(e.stopReason);
      });
      keel.registerContext("Be brief.");
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const runtime = {} as ExtensionRuntime;
    await expect(
      result.definition.hooks?.beforeModelCall?.({ turn: 1 }, runtime, hookContext),
    ).resolves.toEqual({
      context: "a\n\nb",
    });
    expect(result.definition.systemPrompt).toBe("Be brief.");
  });

  it("a factory that throws yields an error and no definition", async () => {
    const result = await definitionFromFactory("broken", (keel) => {
      keel.registerContext("never");
      throw new Error("boom");
    });
    expect(result).toEqual({
      ok: false,
      error: { type: "factory_failed", extensionId: "broken", message: "boom" },
    });
  });

  it("chains beforeToolCall rewrites and stops at the first block", async () => {
    const result = await definitionFromFactory("policy", (keel) => {
      keel.on("beforeToolCall", (e) => ({
        action: "continue",
        args: { ...e.args, n: Number(e.args.n) + 1 },
      }));
      keel.on("beforeToolCall", (e) =>
        Number(e.args.n) > 2 ? { action: "block", reason: "too big" } : undefined,
      );
    });
    if (!result.ok) throw new Error("factory failed");
    const hook = result.definition.hooks!.beforeToolCall!;
    const rt = {} as ExtensionRuntime;
    await expect(hook({ toolCallId: "1", toolName: "X", args: { n: 0 } }, rt, hookContext)).resolves.toEqual({
      action: "continue",
      args: { n: 1 },
    });
    await expect(hook({ toolCallId: "1", toolName: "X", args: { n: 5 } }, rt, hookContext)).resolves.toEqual({
      action: "block",
      reason: "too big",
    });
  });
});
