// Models in the kernel against the mock server playing the vendors: catalog defaults per provider,
// ids only the models endpoint knows (with the cached discovery's limits), discovery with its
// cache and offline answer, and a Claude Sonnet 5.5 session (notes between tool calls, no forced
// tools anywhere, model switches and compaction that leave no thinking the API would reject).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinModelRegistry, type Model, type ThinkingContent } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CodingAgentEvent,
  createCodingAgent,
  discoverModels,
  discoveryCachePath,
} from "../../src/index.js";
import { chooseModel } from "../../src/kernel/model-choice.js";
import { type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
let server: MockServer;
beforeEach(async () => {
  box = sandbox();
  server = await startMockServer({ turns: [] });
  // Every Anthropic model of the catalog goes to the mock, the way a proxy is configured.
  mkdirSync(box.home, { recursive: true });
  writeFileSync(
    join(box.home, "config.json"),
    JSON.stringify({ providers: { anthropic: { baseUrl: server.anthropicBaseUrl } } }),
  );
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const env = { ANTHROPIC_API_KEY: "test" };

/** Enough said that a summary is smaller than what it replaces (a shorter history is not compacted). */
const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;
const streamOptions = { apiKey: "test", retry: { maxRetries: 0 } };

describe("model choice", () => {
  it("starts a provider with a key on its catalog default", () => {
    const registry = builtinModelRegistry();
    expect(chooseModel(registry, [], { ANTHROPIC_API_KEY: "k" })._unsafeUnwrap().model.id).toBe(
      "claude-opus-5-5",
    );
    expect(chooseModel(registry, [], { OPENAI_API_KEY: "k" })._unsafeUnwrap().model.id).toBe("gpt-6.2-astra");
    expect(chooseModel(registry, [], {})._unsafeUnwrapErr().type).toBe("model");
  });

  it("refuses a typo of a known id with the close match and how to check for a new model", () => {
    const error = chooseModel(builtinModelRegistry(), ["anthropic/claude-sonet-5-5"])._unsafeUnwrapErr();
    expect(error.message).toContain("did you mean anthropic/claude-sonnet-5-5?");
    expect(error.message).toContain("`keel models --provider anthropic --refresh`");
  });
});

describe("discovery", () => {
  it("merges the endpoint with the catalog, caches it under the Keel home, and answers from the cache offline", async () => {
    server.setScenario({
      turns: [],
      models: [
        { id: "claude-opus-5-5" },
        { id: "claude-next-1", displayName: "Claude Next", maxInputTokens: 300_000, maxOutputTokens: 20_000 },
      ],
    });
    let now = Date.parse("2026-12-01T10:00:00Z");
    const options = { cwd: box.workspace, home: box.home, provider: "anthropic", env, now: () => now };
    const first = (await discoverModels(options))._unsafeUnwrap()[0]!;
    expect(first.endpoint).toEqual({ state: "fetched", fetchedAt: "2026-12-01T10:00:00.000Z" });
    expect(first.defaultModel).toBe("claude-opus-5-5");
    const byId = new Map(first.models.map((m) => [m.id, m]));
    expect(byId.get("claude-opus-5-5")?.available).toBe(true);
    expect(byId.get("claude-sonnet-5-5")?.available).toBe(false);
    expect(byId.get("claude-next-1")).toMatchObject({
      inCatalog: false,
      available: true,
      name: "Claude Next",
    });
    expect(server.listings).toHaveLength(1);

    // Within the TTL the cache answers; nothing is asked.
    now += 60_000;
    expect((await discoverModels(options))._unsafeUnwrap()[0]?.endpoint.state).toBe("cached");
    expect(server.listings).toHaveLength(1);

    // Server down, refresh asked: the last answer, marked stale with the reason.
    await server.close();
    const offline = (await discoverModels({ ...options, refresh: true }))._unsafeUnwrap()[0]!;
    expect(offline.endpoint).toMatchObject({ state: "stale", fetchedAt: "2026-12-01T10:00:00.000Z" });
    expect(offline.endpoint.state === "stale" && offline.endpoint.error).toMatch(
      /connect|reach|ECONNREFUSED/i,
    );
    expect(offline.models.find((m) => m.id === "claude-next-1")?.available).toBe(true);
  });

  it("does not ask an endpoint without a key, and says which variable to set", async () => {
    const [row] = (
      await discoverModels({ cwd: box.workspace, home: box.home, provider: "deepseek", env: {} })
    )._unsafeUnwrap();
    expect(row?.endpoint).toEqual({ state: "no-key", keyEnv: "DEEPSEEK_API_KEY" });
    expect(row?.models.every((m) => m.available === undefined)).toBe(true);
    expect(
      (await discoverModels({ cwd: box.workspace, home: box.home, provider: "nope", env }))._unsafeUnwrapErr()
        .message,
    ).toContain('Unknown provider "nope"');
  });
});

describe("an id only the models endpoint knows", () => {
  it("runs on the provider's defaults with the cached limits, after a warning", async () => {
    server.setScenario({
      turns: [],
      models: [{ id: "claude-next-1", maxInputTokens: 300_000, maxOutputTokens: 20_000 }],
    });
    await discoverModels({ cwd: box.workspace, home: box.home, provider: "anthropic", env });
    server.setScenario({ turns: [{ text: "Hello from next." }] });
    const events: CodingAgentEvent[] = [];
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: "anthropic/claude-next-1",
        streamOptions,
        onEvent: (e) => events.push(e),
      })
    )._unsafeUnwrap();
    expect(agent.model()).toMatchObject({ id: "claude-next-1", contextWindow: 300_000, maxOutput: 20_000 });
    const warnings = events.flatMap((e) =>
      e.type === "diagnostic" && e.diagnostic.level === "warning" ? [e.diagnostic.message] : [],
    );
    expect(warnings).toContain(
      "anthropic/claude-next-1 is listed by anthropic's models endpoint but not in Keel's model catalog; running it with anthropic's defaults (300,000-token window, 20,000 output, no thinking settings). Its prices are unknown, so cost shows $0.",
    );
    const run = (await agent.prompt("hi"))._unsafeUnwrap();
    await agent.close();
    expect(run.text).toBe("Hello from next.");
    expect(server.requests[0]?.body).toMatchObject({ model: "claude-next-1", max_tokens: 20_000 });
    expect(server.requests[0]?.body).not.toHaveProperty("thinking");
  });
});

describe("a Claude Sonnet 5.5 session", () => {
  it("keeps the notes between tool calls, never forces a tool, and leaves no thinking the API rejects", async () => {
    writeFileSync(join(box.workspace, "a.ts"), "export const a = 1;\n");
    server.setScenario({
      turns: [
        // Opus 5.5 first, with thinking the mock signs for Opus.
        { thinking: "Opus looks around.", text: `Opus is here.${LONG}` },
        // Then Sonnet 5.5: notes before a tool call, the tool result, an answer.
        {
          thinking: "Read a.ts.",
          text: "Let me read a.ts first.",
          toolCalls: [{ name: "Read", arguments: { path: "a.ts" } }],
        },
        { text: "a is 1." },
        // /compact's summary, then one more prompt after it.
        { text: "## Goal\nRead a.ts\n## Progress\n### Done\n- read it\n## Next steps\n- none" },
        { text: "Still here after compaction." },
      ],
    });
    const events: CodingAgentEvent[] = [];
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: "anthropic/claude-opus-5-5",
        streamOptions,
        permissionMode: "bypassPermissions",
        onEvent: (e) => events.push(e),
      })
    )._unsafeUnwrap();
    expect((await agent.prompt(`hello${LONG}`))._unsafeUnwrap().text).toBe(`Opus is here.${LONG}`);

    agent.setModel("anthropic/claude-sonnet-5-5")._unsafeUnwrap();
    const run = (await agent.prompt("what is a?"))._unsafeUnwrap();
    // The mock rejects a block Opus signed on Sonnet 5.5 with a 400: the run would have failed.
    expect(run.stopReason).toBe("stop");
    expect(run.text).toBe("a is 1.");
    const notes = events.flatMap((e) =>
      e.type === "message_end" && e.message.role === "assistant"
        ? e.message.content.filter((c): c is ThinkingContent => c.type === "thinking").map((c) => c.thinking)
        : [],
    );
    expect(notes).toContain("Let me read a.ts first.");

    // Compaction rewrites what came before the kept thinking; the next request is still accepted.
    (await agent.compact())._unsafeUnwrap();
    expect((await agent.prompt("still there?"))._unsafeUnwrap().text).toBe("Still here after compaction.");
    await agent.close();

    // The summary is asked at the end of the conversation with its thinking unchanged (a change
    // would void the cached messages), the ask last.
    expect(server.requests[3]?.body.thinking).toEqual(server.requests[2]?.body.thinking);
    expect(JSON.stringify((server.requests[3]!.body.messages as unknown[]).at(-1))).toContain(
      "This conversation is about to be compacted",
    );
    for (const request of server.requests) {
      const choice = request.body.tool_choice as { type?: string } | undefined;
      expect(choice === undefined || choice.type === "auto" || choice.type === "none").toBe(true);
      expect(request.body).not.toHaveProperty("temperature");
    }
    expect(server.requests).toHaveLength(5);
    // Sonnet's requests carry no block Opus signed.
    for (const request of server.requests.slice(1)) expect(request.raw).not.toContain("sig_claude-opus-5-5");
  });
});

describe("one-request reminders on a model with preserved thinking", () => {
  it("keep every request accepted although the reminder before a thinking block is gone next time", async () => {
    server.setScenario({
      turns: [
        { thinking: "Check the folder.", text: "Listing.", toolCalls: [{ name: "LS", arguments: {} }] },
        { thinking: "Done looking.", text: "It is empty." },
      ],
    });
    const reminder = {
      id: "reminder",
      hooks: { beforeModelCall: () => ({ context: "Remember the open items." }) },
    };
    const agent = (
      await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: "anthropic/claude-sonnet-5-5",
        streamOptions,
        extensions: [reminder],
      })
    )._unsafeUnwrap();
    const run = (await agent.prompt("what is here?"))._unsafeUnwrap();
    await agent.close();
    // The second request carries the first reply's thinking without the reminder that preceded
    // it: the mock (like the API) rejects that unless the request asks to drop stale blocks.
    expect(run.text).toBe("It is empty.");
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("sig_claude-sonnet-5-5_0000_0");
    expect(server.requests[1]?.body.thinking).toMatchObject({
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
  });
});

it("writes the discovery cache where it says", () => {
  expect(discoveryCachePath("/h")).toBe(join("/h", "cache", "models.json"));
});

describe("token estimates per tokenizer family", () => {
  it("sizes the context at the model's ratio, and from the provider's count once it reported one", async () => {
    const sizeWith = async (tokenizer: { family: string; charsPerToken: number }, usageInput?: number) => {
      const { createFauxFetch, fauxModel } = await import("@keel/testing");
      const faux = createFauxFetch({
        turns: [
          { text: "x".repeat(4000), ...(usageInput ? { usage: { input: usageInput, output: 1000 } } : {}) },
        ],
      });
      const agent = (
        await createCodingAgent({
          cwd: box.workspace,
          home: box.home,
          session: { mode: "ephemeral" },
          model: { ...(fauxModel("anthropic-messages") as Model), tokenizer },
          streamOptions: { fetch: faux.fetch, apiKey: "test" },
        })
      )._unsafeUnwrap();
      const before = agent.contextUsage().tokens;
      await agent.prompt("go");
      const after = agent.contextUsage().tokens;
      await agent.close();
      return { before, after };
    };
    const legacy = await sizeWith({ family: "claude", charsPerToken: 4 });
    const sonnet5 = await sizeWith({ family: "claude-2026", charsPerToken: 3.1 });
    // The same system prompt and tools count about 30% more tokens on the newer tokenizer.
    expect(sonnet5.before / legacy.before).toBeGreaterThan(1.25);
    expect(sonnet5.before / legacy.before).toBeLessThan(1.32);
    // Once the provider reported its count, that count anchors the size; only the reply is estimated.
    const reported = await sizeWith({ family: "claude-2026", charsPerToken: 3.1 }, 50_000);
    expect(reported.after).toBeGreaterThan(50_000);
    expect(reported.after).toBeLessThan(50_000 + 4000 / 3.1 + 100);
  });
});
