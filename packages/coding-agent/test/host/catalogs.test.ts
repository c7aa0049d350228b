// The catalog registry behind SearchTools / ExecuteTool: exact names before scoring, a stable
// scoring order, limits, toolRefs that survive refreshes, and errors the model can act on.
import type { AgentTool } from "@keel/agent";
import {
  type CatalogEntry,
  type CatalogInventory,
  defineExtension,
  type ExtensionDefinition,
  type ExtensionRuntime,
  type ToolCatalog,
  Type,
  textResult,
} from "@keel/extension-sdk";
import { testToolContext } from "@keel/extension-sdk/testing";
import { describe, expect, it } from "vitest";
import { CatalogView } from "../../src/host/catalog-tools.js";
import { CatalogRegistry } from "../../src/index.js";
import { startHost } from "./helpers.js";

const runtime = {} as ExtensionRuntime;

function entry(name: string, description: string, parameters = Type.Object({})): CatalogEntry {
  return {
    name,
    description,
    parameters,
    execute: async (args) => textResult(`${name} ${JSON.stringify(args)}`),
  };
}

function registry(catalogs: { extensionId: string; catalog: ToolCatalog }[]) {
  const reports: string[] = [];
  const r = new CatalogRegistry(
    (id, message) => reports.push(`${id}: ${message}`),
    new Set(["Bash", "Read"]),
  );
  catalogs.forEach(({ extensionId, catalog }, i) => {
    r.add(extensionId, catalog, runtime, CatalogRegistry.groupFor(extensionId, catalog, i));
  });
  const view = new CatalogView(r);
  const context = { signal: new AbortController().signal, toolCallId: "c", onUpdate: () => {} };
  const [search, execute] = view.residentTools((_id, loop) => testToolContext(loop)) as [
    AgentTool,
    AgentTool,
  ];
  return {
    r,
    view,
    reports,
    search: async (query: string, limit?: number) =>
      (
        (await search.execute({ query, ...(limit ? { limit } : {}) }, context)).details as {
          hits: string[];
        }
      ).hits,
    execute: async (toolRef: string, args: Record<string, unknown>) => {
      const result = await execute.execute({ toolRef, arguments: args }, context);
      return {
        isError: result.isError === true,
        text: result.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
      };
    },
  };
}

const github = [
  entry("create_issue", "Create a new issue in a GitHub repository."),
  entry("list_comments", "List comments on an issue or pull request."),
  entry("search_code", "Search code across repositories, including issues and docs."),
  entry("get_user", "Get a user profile."),
];

describe("SearchTools", () => {
  it("scores name over words over description, drops non-matches and breaks ties by toolRef", async () => {
    const { search } = registry([{ extensionId: "mcp", catalog: { id: "github", discover: () => github } }]);
    expect(await search("issue")).toEqual(["mcp:create_issue", "mcp:list_comments", "mcp:search_code"]);
    expect(await search("nothing-like-this")).toEqual([]);
    // Tie: both names contain "get".
    const tie = registry([
      { extensionId: "b", catalog: { id: "b", discover: () => [entry("get_file", "Read one file.")] } },
      { extensionId: "a", catalog: { id: "a", discover: () => [entry("get_dir", "Read one folder.")] } },
    ]);
    expect(await tie.search("get")).toEqual(["a:get_dir", "b:get_file"]);
  });

  it("an exact name resolves first even when another tool scores higher", async () => {
    const { search } = registry([
      {
        extensionId: "a",
        catalog: {
          id: "a",
          discover: () => [entry("deploy_deploy", "deploy deploy: deploy the deploy pipeline")],
        },
      },
      { extensionId: "z", catalog: { id: "z", discover: () => [entry("deploy", "Ship it.")] } },
    ]);
    // By score alone "a:deploy_deploy" would tie and sort first; the exact name wins.
    expect(await search("deploy")).toEqual(["z:deploy", "a:deploy_deploy"]);
    expect(await search("DEPLOY")).toEqual(["z:deploy", "a:deploy_deploy"]);
  });

  it("an exact toolRef resolves first even when another tool scores higher", async () => {
    const { search } = registry([
      {
        extensionId: "tools",
        catalog: {
          id: "tools",
          label: "github",
          discover: () => [
            entry("github_search_repositories", "Search GitHub repositories."),
            entry("search", "Find things."),
          ],
        },
      },
    ]);
    expect(await search("github:search")).toEqual(["github:search", "github:github_search_repositories"]);
  });

  it("limits results (default 8) and camelCase names split into words", async () => {
    const many = Array.from({ length: 20 }, (_, i) =>
      entry(`fetchThing${String(i).padStart(2, "0")}`, "Fetch a thing."),
    );
    const { search } = registry([{ extensionId: "x", catalog: { id: "x", discover: () => many } }]);
    expect(await search("thing")).toHaveLength(8);
    expect(await search("thing", 3)).toEqual(["x:fetchThing00", "x:fetchThing01", "x:fetchThing02"]);
    expect(await search("fetch thing", 25)).toHaveLength(20);
  });

  it("the result text gives toolRef, description and argument schema", async () => {
    const { view } = registry([
      {
        extensionId: "x",
        catalog: {
          id: "x",
          discover: () => [entry("greet", "Greet someone.", Type.Object({ name: Type.String() }))],
        },
      },
    ]);
    const [search] = view.residentTools((_id, loop) => testToolContext(loop));
    const result = await search!.execute(
      { query: "greet" },
      { signal: new AbortController().signal, toolCallId: "c", onUpdate: () => {} },
    );
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain("x:greet\n  Greet someone.\n  arguments: ");
    expect(text).toContain('"name":{"type":"string"}');
  });
});

describe("ExecuteTool", () => {
  it("keeps a toolRef stable across refreshes and reports a removed one with a hint to search again", async () => {
    let tools = [entry("alpha", "First."), entry("beta", "Second.")];
    let invalidate = () => {};
    const { r, execute, search } = registry([
      {
        extensionId: "dyn",
        catalog: {
          id: "dyn",
          discover: () => tools,
          subscribe: (fn) => {
            invalidate = fn;
            return undefined;
          },
        },
      },
    ]);
    expect(await search("alpha")).toEqual(["dyn:alpha"]);
    expect(await execute("dyn:alpha", { x: 1 })).toEqual({ isError: false, text: 'alpha {"x":1}' });

    tools = [entry("gamma", "Third."), entry("alpha", "First, changed.")];
    invalidate();
    await r.refresh();
    expect(r.resolve("dyn:alpha")?.description).toBe("First, changed.");
    expect(await execute("dyn:alpha", {})).toEqual({ isError: false, text: "alpha {}" });
    expect(await execute("dyn:beta", {})).toEqual({
      isError: true,
      text: 'Unknown or removed tool "dyn:beta". Search again with SearchTools.',
    });
  });

  it("invalid arguments for a catalog entry return the validator's message", async () => {
    const { execute } = registry([
      {
        extensionId: "x",
        catalog: {
          id: "x",
          discover: () => [
            entry("greet", "Greet.", Type.Object({ name: Type.String(), times: Type.Integer() })),
          ],
        },
      },
    ]);
    const result = await execute("x:greet", { name: { first: "Ada" } });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Invalid arguments for x:greet: /);
    expect(result.text).toContain("/name");
    expect(result.text).toContain("/times");
  });

  it("a discover that throws keeps the last inventory and is reported once by the host", async () => {
    let fail = false;
    let invalidate = () => {};
    const { host, diagnostics } = await startHost([
      defineExtension({
        id: "flaky",
        catalogs: [
          {
            id: "flaky",
            discover: () => {
              if (fail) throw new Error("server down");
              return [entry("ping", "Ping.")];
            },
            subscribe: (fn) => {
              invalidate = fn;
              return undefined;
            },
          },
        ],
      }) as ExtensionDefinition,
    ]);
    const r = host.catalogs;
    await r.refresh();
    fail = true;
    for (let i = 0; i < 3; i++) {
      invalidate();
      await r.refresh();
    }
    expect(r.resolve("flaky:ping")?.name).toBe("ping");
    expect(r.inventory()).toEqual({ flaky: [{ name: "ping", digest: expect.any(String) }] });
    expect(diagnostics).toEqual([
      { extensionId: "flaky", level: "error", message: "catalog flaky: discover failed: server down" },
    ]);
  });

  it("names groups by group (or label), the extension id for its first catalog, else extension-catalog", async () => {
    const { r } = registry([
      { extensionId: "mcp", catalog: { id: "github", group: "GitHub", discover: () => [entry("a", "A.")] } },
      { extensionId: "skills", catalog: { id: "skills", discover: () => [entry("b", "B.")] } },
      { extensionId: "mcp", catalog: { id: "linear", discover: () => [entry("c", "C.")] } },
      { extensionId: "old", catalog: { id: "x", label: "Legacy", discover: () => [entry("d", "D.")] } },
    ]);
    await r.refresh();
    expect(Object.keys(r.inventory())).toEqual(["GitHub", "skills", "mcp-linear", "Legacy"]);
  });

  it("a digest changes when the description or schema does, unless the entry pins its own", async () => {
    let description = "One.";
    let invalidate = () => {};
    const { r } = registry([
      {
        extensionId: "x",
        catalog: {
          id: "x",
          discover: () => [entry("t", description), { ...entry("pinned", description), digest: "v1" }],
          subscribe: (fn) => {
            invalidate = fn;
            return undefined;
          },
        },
      },
    ]);
    await r.refresh();
    const before = r.inventory().x!;
    description = "Two.";
    invalidate();
    await r.refresh();
    const after = r.inventory().x!;
    expect(after[0]!.digest).not.toBe(before[0]!.digest);
    expect(after[1]!.digest).toBe("v1");
  });
});

describe("SearchTools index", () => {
  /** The plain definition of the ranking (a full scan and sort), which the index must match. */
  function reference(
    entries: { ref: string; name: string; description: string }[],
    query: string,
    limit: number,
  ) {
    const words = (text: string) =>
      text
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean);
    const q = query.trim().toLowerCase();
    const exact = entries.filter((e) => e.name.toLowerCase() === q || e.ref.toLowerCase() === q);
    const terms = words(query);
    const scored = entries
      .filter((e) => !exact.includes(e))
      .map((e) => {
        const name = e.name.toLowerCase();
        const own = words(`${e.name} ${e.description}`);
        let score = q && name.includes(q) ? 20 : 0;
        for (const t of terms) {
          if (name.includes(t)) score += 8;
          if (own.includes(t)) score += 4;
          else if (e.description.toLowerCase().includes(t)) score += 2;
        }
        return { e, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || (a.e.ref < b.e.ref ? -1 : a.e.ref > b.e.ref ? 1 : 0));
    return [...exact, ...scored.map((s) => s.e)].slice(0, limit).map((e) => e.ref);
  }

  it("ranks exactly like a full scan and sort, over random inventories and queries", async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    const vocabulary = [
      "create",
      "get",
      "list",
      "issue",
      "Issue",
      "pull",
      "request",
      "user",
      "fetchThing",
      "a",
      "in",
      "repo",
    ];
    for (let round = 0; round < 20; round++) {
      const groups = ["gh", "Lin", "x.y"];
      const catalogs = groups.map((group) => {
        const names = new Set<string>();
        while (names.size < 15) names.add(`${pick(vocabulary)}${pick(["_", "", "-"])}${pick(vocabulary)}`);
        return {
          group,
          entries: [...names].map((n) =>
            entry(n, `${pick(vocabulary)} ${pick(vocabulary)} ${pick(vocabulary)}.`),
          ),
        };
      });
      const { r } = registry(
        catalogs.map(({ group, entries }) => ({
          extensionId: "ext",
          catalog: { id: group.toLowerCase().replace(/[^a-z]/g, ""), label: group, discover: () => entries },
        })),
      );
      await r.refresh();
      const flat = catalogs.flatMap(({ group, entries }) =>
        entries.map((e) => ({ ref: `${group}:${e.name}`, name: e.name, description: e.description })),
      );
      for (let k = 0; k < 30; k++) {
        const query = pick([
          () => pick(flat).name,
          () => pick(flat).ref.toUpperCase(),
          () => `${pick(vocabulary)} ${pick(vocabulary)}`,
          () => `${pick(vocabulary)}${pick(vocabulary)}`,
          () => ` ${pick(vocabulary)} `,
          () => "::",
        ])();
        const limit = pick([1, 3, 8, 25]);
        expect(
          r.search(query, limit).map((h) => h.ref),
          `${query} (limit ${limit})`,
        ).toEqual(reference(flat, query, limit));
      }
    }
  });
});

describe("waiting for a catalog to settle", () => {
  /** A catalog whose discovery the test holds open, and whose source it can say has changed. */
  function held(deadlineMs?: number) {
    let state: CatalogInventory = { entries: [], pending: { reason: "still connecting", waitMs: 20_000 } };
    let invalidate = () => {};
    let release: (() => void) | undefined;
    let hold = false;
    let lateState: CatalogInventory | undefined;
    const catalog: ToolCatalog = {
      id: "remote",
      ...(deadlineMs ? { deadlineMs } : {}),
      discover: async () => {
        const now = state;
        if (hold) await new Promise<void>((r) => (release = r));
        return hold === false && lateState ? lateState : now;
      },
      subscribe: (fn) => {
        invalidate = fn;
        return undefined;
      },
    };
    return {
      catalog,
      hold: () => (hold = true),
      /** The source says it changed, without a change yet (a server moving on while it connects). */
      poke: () => invalidate(),
      settleSource: () => {
        state = { entries: [entry("Echo", "Echoes.")] };
        invalidate();
      },
      finish: () => {
        hold = false;
        release?.();
      },
      /** The held discovery ends with the source settled (it saw the server connect). */
      finishSettled: () => {
        lateState = { entries: [entry("Echo", "Echoes.")] };
        hold = false;
        release?.();
      },
    };
  }

  it("a source that settles while a discovery is under way ends the wait at once, not at the window", async () => {
    const source = held();
    const { r } = registry([{ extensionId: "mcp", catalog: source.catalog }]);
    await r.refresh();
    expect(r.pendingGroups()).toHaveLength(1);
    // The next discovery starts (the source changed once) and is held open; while it runs, the
    // source settles and says so. That discovery then answers what it saw when it started.
    source.hold();
    source.poke();
    const started = Date.now();
    const waiting = r.settle(() => true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.settleSource();
    source.finish();
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.pendingGroups()).toEqual([]);
    expect(r.search("Echo", 8).map((h) => h.ref)).toEqual(["mcp:Echo"]);
  });

  it("a discovery that outlives its deadline wakes the waiters when it ends", async () => {
    const source = held(50);
    const { r } = registry([{ extensionId: "mcp", catalog: source.catalog }]);
    await r.refresh();
    source.hold();
    source.poke();
    const started = Date.now();
    const waiting = r.settle(() => true);
    // Past the 50 ms deadline the refresh stops waiting for the discovery; the wait goes on.
    await new Promise((resolve) => setTimeout(resolve, 300));
    source.finishSettled();
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.pendingGroups()).toEqual([]);
  });
});
