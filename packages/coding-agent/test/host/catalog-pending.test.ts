// A catalog whose source has not settled (an MCP server still connecting) says so with `pending`:
// nothing the model was told is announced removed meanwhile (a resume is no news), SearchTools
// waits for a group that lists nothing yet and names the groups still settling, ExecuteTool of an
// entry a settling group lacks waits for it, every wait bounded by the group's window and the call.
import {
  type CatalogEntry,
  type CatalogInventory,
  defineExtension,
  type ExtensionDefinition,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { RecordedRequest, Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { startHost, toolResultTexts, userTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const entry = (name: string): CatalogEntry => ({
  name,
  description: `${name} does a thing.`,
  parameters: Type.Object({}),
  execute: async () => textResult(`${name} ran`),
});

/** A catalog the test drives: what it holds, and whether (and how long) it is still settling. */
function remote(group: string) {
  let state: CatalogInventory = [];
  let invalidate: () => void = () => {};
  const definition = defineExtension({
    id: `ext-${group}`,
    catalogs: [
      {
        id: group,
        group,
        discover: () => state,
        subscribe: (fn) => {
          invalidate = fn;
          return undefined;
        },
      },
    ],
  }) as ExtensionDefinition;
  return {
    definition,
    set(names: string[], pending?: { reason: string; waitMs?: number }) {
      state = { entries: names.map(entry), ...(pending ? { pending } : {}) };
      invalidate();
    },
  };
}

const notices = (r: RecordedRequest) => userTexts(r.body).filter((t) => t.startsWith("<capabilities>"));

async function start(
  extensions: ExtensionDefinition[],
  scenario: Scenario,
  session?: { mode: "resume"; session: string },
) {
  const f = faux(scenario);
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
    extensions,
    discoverExtensions: false,
    ...(session ? { session } : {}),
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, requests: f.requests };
}

describe("a catalog that has not settled", () => {
  it("removes nothing the model knows across a resume; once settled, only a real change is news", async () => {
    box = sandbox();
    const first = remote("srv");
    first.set(["alpha", "beta"]);
    const one = await start([first.definition], { turns: [{ text: "ok" }] });
    await one.agent.prompt("one");
    const file = one.agent.sessionFile!;
    await one.agent.close();
    expect(notices(one.requests[0]!)).toHaveLength(1);

    // Resumed while the source is still coming up and knows nothing yet.
    const again = remote("srv");
    again.set([], { reason: "still connecting" });
    const two = await start(
      [again.definition],
      { turns: [], fallback: { text: "ok" } },
      {
        mode: "resume",
        session: file,
      },
    );
    await two.agent.prompt("two");
    // It settles with what the model already knows: still no notice.
    again.set(["alpha", "beta"]);
    await two.agent.prompt("three");
    // Then it really changes: one diff.
    again.set(["alpha", "gamma"]);
    await two.agent.prompt("four");
    await two.agent.close();
    const [r2, r3, r4] = two.requests;
    expect(notices(r2!)).toEqual(notices(one.requests[0]!));
    expect(notices(r3!)).toEqual(notices(r2!));
    expect(notices(r4!).slice(1)).toEqual([
      "<capabilities>\nAdded:\n  srv: gamma\nRemoved:\n  srv: beta\n</capabilities>",
    ]);
  });

  it("lists what a settling group already has (its last inventory) on the first request", async () => {
    box = sandbox();
    const cat = remote("srv");
    cat.set(["alpha"], { reason: "still connecting", waitMs: 5_000 });
    const { agent, requests } = await start([cat.definition], { turns: [{ text: "ok" }] });
    const started = Date.now();
    await agent.prompt("one");
    const took = Date.now() - started;
    await agent.close();
    expect(notices(requests[0]!)).toEqual([
      "<capabilities>\nOn-demand tools (find one with SearchTools, run it with ExecuteTool):\n  srv: alpha\n</capabilities>",
    ]);
    // The request did not wait for the group to settle.
    expect(took).toBeLessThan(2_000);
  });

  it("SearchTools waits for a group that lists nothing yet, and names the groups still settling", async () => {
    box = sandbox();
    const cold = remote("cold");
    const warm = remote("warm");
    cold.set([], { reason: "still connecting", waitMs: 10_000 });
    warm.set(["kept"], { reason: "still connecting", waitMs: 10_000 });
    const { agent, requests } = await start([cold.definition, warm.definition], {
      turns: [
        { toolCalls: [{ name: "SearchTools", arguments: { query: "fresh" } }] },
        { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "cold:fresh", arguments: {} } }] },
        { text: "done" },
      ],
    });
    setTimeout(() => cold.set(["fresh"]), 300);
    await agent.prompt("go");
    await agent.close();
    const results = toolResultTexts(requests[1]!.body);
    expect(results[0]!.text).toContain("cold:fresh");
    // Only warm is still settling when the search answers.
    expect(results[0]!.text).toContain("Not settled yet");
    expect(results[0]!.text).toContain("warm: still connecting");
    expect(results[0]!.text).not.toContain("cold: still connecting");
    expect(toolResultTexts(requests[2]!.body)[1]).toEqual({ text: "fresh ran", isError: false });
  });

  it("ExecuteTool of an entry a settling group lacks waits for it, then runs it", async () => {
    box = sandbox();
    const cat = remote("srv");
    cat.set([], { reason: "still connecting", waitMs: 10_000 });
    const { agent, requests } = await start([cat.definition], {
      turns: [
        { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "srv:late", arguments: {} } }] },
        { text: "done" },
      ],
    });
    setTimeout(() => cat.set(["late"]), 300);
    await agent.prompt("go");
    await agent.close();
    expect(toolResultTexts(requests[1]!.body)).toEqual([{ text: "late ran", isError: false }]);
  });

  it("waits no longer than the group's window, and not for an unrelated group", async () => {
    box = sandbox();
    const slow = remote("slow");
    const other = remote("other");
    slow.set([], { reason: "still connecting", waitMs: 400 });
    other.set([], { reason: "still connecting", waitMs: 60_000 });
    const { agent, requests } = await start([slow.definition, other.definition], {
      turns: [
        { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "slow:never", arguments: {} } }] },
        { text: "done" },
      ],
    });
    const started = Date.now();
    await agent.prompt("go");
    const took = Date.now() - started;
    await agent.close();
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(5_000);
    const [result] = toolResultTexts(requests[1]!.body);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain('Unknown or removed tool "slow:never"');
  });

  it("an abort ends the wait", async () => {
    const cat = remote("srv");
    const { host } = await startHost([cat.definition]);
    cat.set([], { reason: "still connecting", waitMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const target = await host.catalogs.locate({ toolRef: "srv:x", arguments: {} }, controller.signal);
    expect(target.found).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    await host.shutdown("exit");
  });
});
