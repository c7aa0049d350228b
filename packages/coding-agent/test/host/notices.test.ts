// Capability notices through the real kernel: what the model was told is folded from the journal,
// so a rewind or a compaction realigns the next notice, and nothing changed means no notice.
import {
  type CatalogEntry,
  defineExtension,
  type ExtensionDefinition,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { RecordedRequest } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { toolResultTexts, userTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const entry = (name: string): CatalogEntry => ({
  name,
  description: `The ${name} tool.`,
  parameters: Type.Object({}),
  execute: async () => textResult(`${name} ran`),
});

function catalogExtension(id: string, names: string[]) {
  const current = new Set(names);
  let invalidate = () => {};
  const definition = defineExtension({
    id,
    catalogs: [
      {
        id,
        discover: () => [...current].map(entry),
        subscribe: (fn) => {
          invalidate = fn;
          return undefined;
        },
      },
    ],
  }) as ExtensionDefinition;
  return {
    definition,
    add: (name: string) => {
      current.add(name);
      invalidate();
    },
    remove: (name: string) => {
      current.delete(name);
      invalidate();
    },
  };
}

const notices = (r: RecordedRequest) => userTexts(r.body).filter((t) => t.startsWith("<capabilities>"));

async function start(extensions: ExtensionDefinition[], session?: { mode: "resume"; session: string }) {
  // Long replies and a small window, so a manual compaction has something to cut.
  const f = faux(
    { turns: [], fallback: { text: `Noted. ${"lorem ipsum ".repeat(600)}` } },
    { contextWindow: 20_000 },
  );
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions,
    discoverExtensions: false,
    ...(session ? { session } : {}),
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, requests: f.requests };
}

describe("capability notices", () => {
  it("first lists names, then only diffs, none when unchanged; rewind and compaction realign", async () => {
    box = sandbox();
    const cat = catalogExtension("cat", ["alpha"]);
    const { agent, requests } = await start([cat.definition]);

    await agent.prompt("one");
    expect(notices(requests[0]!)).toEqual([
      "<capabilities>\nOn-demand tools (find one with SearchTools, run it with ExecuteTool):\n  cat: alpha\n</capabilities>",
    ]);

    await agent.prompt("two");
    expect(notices(requests[1]!)).toEqual(notices(requests[0]!));

    cat.add("beta");
    await agent.prompt("three");
    expect(notices(requests[2]!).slice(1)).toEqual(["<capabilities>\nAdded:\n  cat: beta\n</capabilities>"]);

    // Rewinding before "three" drops the notice the model got with it: the next request says it again.
    (await agent.rewind(1))._unsafeUnwrap();
    await agent.prompt("four");
    expect(userTexts(requests[3]!.body)).not.toContain("three");
    expect(notices(requests[3]!)).toEqual(notices(requests[2]!));

    cat.remove("alpha");
    await agent.prompt("five");
    expect(notices(requests[4]!).at(-1)).toBe("<capabilities>\nRemoved:\n  cat: alpha\n</capabilities>");
    await agent.close();
  });

  it("after a compaction that keeps no notice, the next notice lists names again", async () => {
    box = sandbox();
    const cat = catalogExtension("cat", ["alpha"]);
    const { agent, requests } = await start([cat.definition]);
    await agent.prompt("one");
    cat.add("beta");
    await agent.prompt("two");
    // Three unchanged prompts: the kept recent history (about 2.5 long replies) holds no notice.
    for (const p of ["three", "four", "five"]) await agent.prompt(p);
    expect(notices(requests.at(-1)!)).toHaveLength(2);
    const compacted = await agent.compact();
    if (compacted.isErr()) throw new Error(compacted.error.message);
    expect(agent.messages().filter((m) => JSON.stringify(m.content).includes("<capabilities>"))).toEqual([]);

    const afterCompaction = requests.length;
    await agent.prompt("six");
    expect(notices(requests[afterCompaction]!)).toEqual([
      "<capabilities>\nOn-demand tools (find one with SearchTools, run it with ExecuteTool):\n  cat: alpha, beta\n</capabilities>",
    ]);
    await agent.prompt("seven");
    expect(notices(requests[afterCompaction + 1]!)).toEqual(notices(requests[afterCompaction]!));
    await agent.close();
  });

  // KERNEL/SESSION BUG (reported): a kept diff notice makes fold believe the model knows the
  // whole inventory stored with it, though the notice that announced the rest was summarized away.
  // Remove `.fails` once fixed.
  it("after a compaction that keeps only a diff notice, what it did not say is announced again", async () => {
    box = sandbox();
    const cat = catalogExtension("cat", ["alpha"]);
    const { agent, requests } = await start([cat.definition]);
    await agent.prompt("one");
    cat.add("beta");
    await agent.prompt("two"); // Added: beta — summarized away below
    await agent.prompt("three");
    cat.remove("alpha");
    await agent.prompt("four"); // Removed: alpha — kept
    const compacted = await agent.compact();
    if (compacted.isErr()) throw new Error(compacted.error.message);
    const kept = agent
      .messages()
      .flatMap((m) => (m.role === "user" && typeof m.content === "string" ? [m.content] : []));
    expect(kept.filter((t) => t.startsWith("<capabilities>"))).toEqual([
      "<capabilities>\nRemoved:\n  cat: alpha\n</capabilities>",
    ]);
    const afterCompaction = requests.length;
    await agent.prompt("five");
    await agent.close();
    // Nothing in the context says beta exists: the next request must.
    expect(notices(requests[afterCompaction]!).join("\n")).toContain("beta");
  });

  it("a resumed session diffs against what its journal told, not against nothing", async () => {
    box = sandbox();
    const first = await start([catalogExtension("cat", ["alpha", "beta"]).definition]);
    await first.agent.prompt("one");
    const file = first.agent.sessionFile!;
    await first.agent.close();

    const resumed = await start([catalogExtension("cat", ["beta", "gamma"]).definition], {
      mode: "resume",
      session: file,
    });
    await resumed.agent.prompt("two");
    await resumed.agent.close();
    const told = notices(resumed.requests[0]!);
    expect(told).toHaveLength(2);
    expect(told[1]).toBe("<capabilities>\nAdded:\n  cat: gamma\nRemoved:\n  cat: alpha\n</capabilities>");
  });

  // KERNEL BUG (reported): the journaled inventory omits a vanished group instead of listing it
  // empty, so the fold keeps it as told and every request repeats "Removed". Remove `.fails` once fixed.
  it("a catalog group gone on resume is announced removed once, not on every request", async () => {
    box = sandbox();
    const first = await start([
      catalogExtension("one", ["a"]).definition,
      catalogExtension("two", ["b"]).definition,
    ]);
    await first.agent.prompt("start");
    const file = first.agent.sessionFile!;
    await first.agent.close();

    const resumed = await start([catalogExtension("two", ["b"]).definition], {
      mode: "resume",
      session: file,
    });
    await resumed.agent.prompt("again");
    await resumed.agent.prompt("and again");
    await resumed.agent.close();
    const [r1, r2] = resumed.requests;
    expect(notices(r1!).slice(1)).toEqual(["<capabilities>\nRemoved:\n  one: a\n</capabilities>"]);
    expect(notices(r2!)).toEqual(notices(r1!));
  });

  async function searchThenExecute(permissionMode: "bypassPermissions" | "default") {
    box = sandbox();
    const cat = catalogExtension("cat", ["alpha", "beta"]);
    const f = faux({
      turns: [
        { toolCalls: [{ name: "SearchTools", arguments: { query: "alpha" } }] },
        { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "cat:alpha", arguments: {} } }] },
        { text: "Ran alpha." },
        { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "cat:alpha", arguments: {} } }] },
        { text: "Alpha is gone." },
      ],
    });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode,
      extensions: [cat.definition],
      discoverExtensions: false,
    });
    const agent = created._unsafeUnwrap();
    await agent.prompt("run alpha");
    cat.remove("alpha");
    await agent.prompt("run alpha again");
    await agent.close();
    return f.requests;
  }

  it("the model searches, executes by toolRef, and after a removal is told to search again", async () => {
    const requests = await searchThenExecute("bypassPermissions");
    const results = toolResultTexts(requests[4]!.body);
    expect(results[0]!.text).toMatch(/^cat:alpha\n {2}The alpha tool\.\n {2}arguments: /);
    expect(results[1]).toEqual({ text: "alpha ran", isError: false });
    expect(results[2]).toEqual({
      text: 'Unknown or removed tool "cat:alpha". Search again with SearchTools.',
      isError: true,
    });
    // The removal was announced in the same request, before the model tried again.
    expect(notices(requests[3]!).at(-1)).toBe("<capabilities>\nRemoved:\n  cat: alpha\n</capabilities>");
  });

  // KERNEL BUG (reported): in the default (headless) mode an unknown toolRef is judged as
  // ExecuteTool itself (side effects, needs approval), so the model is told "needs approval, do
  // not retry" instead of "search again". Remove `.fails` once fixed.
  it("in the default permission mode a removed toolRef also says to search again", async () => {
    const requests = await searchThenExecute("default");
    expect(toolResultTexts(requests[4]!.body)[2]!.text).toContain("Search again with SearchTools.");
  });
});
