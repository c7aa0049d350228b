// A definition typed by its own schemas must be usable where the host takes any definition.
import { describe, expect, it } from "vitest";
import { defineExtension, type ExtensionDefinition, Type, textResult } from "../src/index.js";

const typed = defineExtension({
  id: "typed-config",
  configuration: {
    scope: "layered",
    schema: Type.Object({ n: Type.Number() }),
    default: { n: 1 },
    resolve: (l) => l.project ?? l.user ?? { n: 1 },
  },
  sessionState: { schema: Type.Object({ count: Type.Number() }), default: { count: 0 } },
  lifecycle: { activate: (ctx) => ({ started: ctx.config.n }) },
  hooks: { runEnd: (_e, rt) => rt.state.set({ count: rt.state.get().count + rt.instance.started }) },
  tools: (tool) => [
    tool({
      name: "T",
      description: "t",
      parameters: Type.Object({ x: Type.String() }),
      execute: async (a) => textResult(a.x),
    }),
  ],
  commands: [{ name: "c", description: "c", run: (_a, rt) => ({ message: String(rt.config.n) }) }],
});

describe("definition assignability", () => {
  it("widens to ExtensionDefinition without a cast", () => {
    const list: ExtensionDefinition[] = [typed];
    expect(list[0]?.id).toBe("typed-config");
  });
});
