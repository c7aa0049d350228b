// Discovery has a deadline and goes on in the background; groups are unique; plain JSON Schema
// entries validate and reject through ExecuteTool like TypeBox ones; described catalogs list
// summaries within their budget and say what was left out.
import {
  type CatalogEntry,
  defineExtension,
  type ExtensionDefinition,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { never, startHost, toolResultTexts, userTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const entry = (name: string, parameters: unknown = Type.Object({})): CatalogEntry => ({
  name,
  description: `${name} does a thing.`,
  parameters: parameters as never,
  execute: async (args) => textResult(`${name} got ${JSON.stringify(args)}`),
});

async function session(scenario: Scenario, extensions: ExtensionDefinition[]) {
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

describe("discovery deadlines", () => {
  it("a discover that never resolves holds the first request only until its deadline; others are listed at once", async () => {
    // Long enough that the bounds below stand on a loaded machine.
    const deadline = 1500;
    const hung = defineExtension({
      id: "hung",
      catalogs: [{ id: "hung", deadlineMs: deadline, discover: () => never<CatalogEntry[]>() }],
    }) as ExtensionDefinition;
    const fine = defineExtension({
      id: "fine",
      catalogs: [{ id: "fine", discover: () => [entry("ok")] }],
    }) as ExtensionDefinition;
    const { agent, requests } = await session({ turns: [{ text: "one" }, { text: "two" }] }, [hung, fine]);
    const started = Date.now();
    await agent.prompt("first");
    const first = Date.now() - started;
    const again = Date.now();
    await agent.prompt("second");
    const second = Date.now() - again;
    const diagnostics = agent.diagnostics().map((d) => d.message);
    await agent.close();
    expect(first).toBeGreaterThanOrEqual(deadline - 50);
    expect(first).toBeLessThan(deadline * 4);
    // The stuck discovery is past its deadline: the next request does not wait for it again.
    expect(second).toBeLessThan(deadline);
    expect(userTexts(requests[0]!.body).join("\n")).toContain("fine: ok");
    expect(diagnostics.some((m) => m.includes(`discovery takes longer than ${deadline} ms`))).toBe(true);
  });

  it("a slow discover that resolves later reaches the model in the next notice", async () => {
    let release!: (entries: CatalogEntry[]) => void;
    const slow = defineExtension({
      id: "slow",
      catalogs: [
        {
          id: "slow",
          deadlineMs: 50,
          discover: () =>
            new Promise<CatalogEntry[]>((resolve) => {
              release = resolve;
            }),
        },
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await session({ turns: [{ text: "one" }, { text: "two" }] }, [slow]);
    await agent.prompt("first");
    expect(userTexts(requests[0]!.body).join("\n")).not.toContain("<capabilities>");
    release([entry("late")]);
    await new Promise((r) => setTimeout(r, 10));
    await agent.prompt("second");
    await agent.close();
    expect(userTexts(requests[1]!.body).join("\n")).toContain("slow: late");
  });
});

describe("unique groups", () => {
  it("a discovery stopped because its catalog went away (removed, shutdown) is no failure to report", async () => {
    // Discovers that honour their signal: they reject when it aborts.
    const honest = (id: string) => ({
      id,
      deadlineMs: 10,
      discover: (_runtime: unknown, { signal }: { signal: AbortSignal }) =>
        new Promise<CatalogEntry[]>((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("This operation was aborted")));
        }),
    });
    const ext = defineExtension({ id: "remote", catalogs: [honest("remote")] }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([ext]);
    host.runtimeOf("remote")!.catalogs.add(honest("later"));
    await host.catalogs.refresh();
    await new Promise((r) => setTimeout(r, 30));
    expect(host.runtimeOf("remote")!.catalogs.remove("later")).toBe(true);
    await host.shutdown("exit");
    await new Promise((r) => setTimeout(r, 10));
    expect(diagnostics.map((d) => d.message).filter((m) => !m.includes("takes longer than"))).toEqual([]);
  });

  it("a second catalog with a group already taken is refused with a diagnostic; the first stays reachable", async () => {
    const a = defineExtension({
      id: "a",
      catalogs: [{ id: "x", group: "shared", discover: () => [entry("one")] }],
    });
    const b = defineExtension({
      id: "b",
      catalogs: [{ id: "y", group: "shared", discover: () => [entry("two")] }],
    });
    const { host, diagnostics } = await startHost([a, b] as ExtensionDefinition[]);
    await host.catalogs.refresh();
    expect(host.catalogs.resolve("shared:one")?.name).toBe("one");
    expect(host.catalogs.resolve("shared:two")).toBeUndefined();
    expect(diagnostics.map((d) => [d.extensionId, d.message])).toEqual([
      ["b", 'catalog group "shared" is already used by extension a (test-2); not loaded'],
    ]);
  });

  it("after activation too: runtime.catalogs.add refuses a taken group or a built-in tool's name", async () => {
    const a = defineExtension({ id: "a", catalogs: [{ id: "x", group: "shared", discover: () => [] }] });
    const b = defineExtension({ id: "b" });
    const { host } = await startHost([a, b] as ExtensionDefinition[]);
    const runtime = host.runtimeOf("b")!;
    expect(runtime.catalogs.add({ id: "y", group: "shared", discover: () => [] })).toEqual({
      ok: false,
      message: 'catalog group "shared" is already used by extension a',
    });
    expect(runtime.catalogs.add({ id: "z", group: "Bash", discover: () => [] }).ok).toBe(false);
    expect(runtime.catalogs.add({ id: "w", group: "b-own", discover: () => [entry("e")] })).toEqual({
      ok: true,
    });
    await host.catalogs.refresh();
    expect(host.catalogs.resolve("b-own:e")?.name).toBe("e");
    expect(runtime.catalogs.remove("w")).toBe(true);
    expect(host.catalogs.resolve("b-own:e")).toBeUndefined();
    // Unnamed, it is grouped by the rule declared catalogs follow: the extension id for one whose
    // id is the extension's, else <extension>-<id>.
    expect(runtime.catalogs.add({ id: "b", discover: () => [entry("mine")] }).ok).toBe(true);
    expect(runtime.catalogs.add({ id: "extra", discover: () => [entry("more")] }).ok).toBe(true);
    await host.catalogs.refresh();
    expect(host.catalogs.resolve("b:mine")?.name).toBe("mine");
    expect(host.catalogs.resolve("b-extra:more")?.name).toBe("more");
  });
});

describe("JSON Schema entries", () => {
  const schema = {
    type: "object",
    properties: {
      owner: { type: "string" },
      labels: { type: "array", items: { $ref: "#/$defs/label" } },
      state: { enum: ["open", "closed"] },
      filter: { type: "object", properties: { since: { type: "integer", minimum: 0 } }, required: ["since"] },
    },
    required: ["owner"],
    $defs: { label: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  };
  const typed = Type.Object({
    owner: Type.String(),
    labels: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
    state: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("closed")])),
    filter: Type.Optional(Type.Object({ since: Type.Integer({ minimum: 0 }) })),
  });
  const ext = defineExtension({
    id: "mcp-like",
    catalogs: [{ id: "mcp-like", discover: () => [entry("plain", schema), entry("typed", typed)] }],
  }) as ExtensionDefinition;
  const call = (toolRef: string, args: Record<string, unknown>) => ({
    toolCalls: [{ name: "ExecuteTool", arguments: { toolRef, arguments: args } }],
  });

  it("validates nested objects, enums and $ref and rejects like the TypeBox twin", async () => {
    const good = { owner: "acme", labels: [{ name: "bug" }], state: "open", filter: { since: "3" } };
    const bad = { labels: [{}], state: "merged", filter: { since: -1 } };
    const { agent, requests } = await session(
      {
        turns: [
          {
            toolCalls: [...call("mcp-like:plain", good).toolCalls, ...call("mcp-like:typed", good).toolCalls],
          },
          { toolCalls: [...call("mcp-like:plain", bad).toolCalls, ...call("mcp-like:typed", bad).toolCalls] },
          { text: "done" },
        ],
      },
      [ext],
    );
    await agent.prompt("go");
    await agent.close();
    const [plainOk, typedOk] = toolResultTexts(requests[1]!.body);
    expect(plainOk).toEqual({
      isError: false,
      text: 'plain got {"owner":"acme","labels":[{"name":"bug"}],"state":"open","filter":{"since":3}}',
    });
    expect(typedOk).toEqual({
      isError: false,
      text: 'typed got {"owner":"acme","labels":[{"name":"bug"}],"state":"open","filter":{"since":3}}',
    });
    const [plainBad, typedBad] = toolResultTexts(requests[2]!.body).slice(-2);
    for (const r of [plainBad!, typedBad!]) {
      expect(r.isError).toBe(true);
      expect(r.text).toContain("/owner is required (expected a string)");
      expect(r.text).toContain("/labels/0/name is required (expected a string)");
      expect(r.text).toContain('/state must be one of "open","closed" (got "merged")');
      expect(r.text).toContain("/filter/since must be >= 0 (got -1)");
    }
  });
});

describe("described catalogs", () => {
  it("lists one-line summaries within the budget and says how many were left out", async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      name: `skill-${String(i).padStart(2, "0")}`,
      description: `Skill number ${i}: what it does, in one line.\nMore detail the notice never shows.`,
      executable: false as const,
    }));
    const skills = defineExtension({
      id: "skills",
      catalogs: [
        {
          id: "skills",
          kind: "skills",
          notice: { heading: "Skills (load one with the Skill tool):", describe: true, budgetChars: 500 },
          discover: () => many,
        },
      ],
    }) as ExtensionDefinition;
    const { agent, requests } = await session(
      {
        turns: [
          { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "skills:skill-01", arguments: {} } }] },
          { text: "ok" },
        ],
      },
      [skills],
    );
    await agent.prompt("go");
    await agent.close();
    const notice = userTexts(requests[0]!.body).find((t) => t.startsWith("<capabilities>"))!;
    expect(notice).toContain(
      "Skills (load one with the Skill tool):\n  skills:\n    - skill-00: Skill number 0: what it does, in one line.",
    );
    expect(notice).not.toContain("More detail");
    const listed = notice.split("\n").filter((l) => l.startsWith("    - ")).length;
    expect(listed).toBeGreaterThan(3);
    expect(listed).toBeLessThan(30);
    expect(notice).toContain(
      `(${30 - listed} more not listed here for space; SearchTools finds them by name or purpose)`,
    );
    expect(notice.length).toBeLessThan(500 + 200);
    // Listed-only entries are not run by ExecuteTool.
    expect(toolResultTexts(requests[1]!.body)[0]).toEqual({
      isError: true,
      text: "skills:skill-01 is a skills entry, not a tool: it is not run by ExecuteTool.",
    });
  });
});
