// WebSearch through the model provider's own search, in the real kernel against the mock server:
// with only the model's key (no Tavily), the tool makes one request of its own offering the
// provider's server tool, the conversation's requests keep their tools and prefix, the result
// carries the sources and citations (journaled with the tool result), and the search's tokens
// and fee count in the run's usage. Anthropic's web search and OpenAI's, the same way.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CodingAgent } from "@keel/coding-agent";
import { hosted, startKernel } from "@keel/coding-agent/testing";
import {
  cacheLines,
  fauxModel,
  type MockServer,
  type RecordedRequest,
  startMockServer,
  type WireApi,
} from "@keel/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWebSearchExtension } from "../src/index.js";
import { type Sandbox, sandbox } from "./helpers/sandbox.js";

let server: MockServer;
let box: Sandbox;
let agent: CodingAgent | undefined;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  box?.cleanup();
});

const SOURCE = "https://nodejs.org/en/blog/release/v24.12.0";
const results = [
  { url: SOURCE, title: "Node.js 24.12.0 (LTS)" },
  { url: "https://nodejs.org/en/about/previous-releases", title: "Node.js releases" },
];
const ANSWER = "The current LTS is Node.js 24.12.0.";

type Json = Record<string, unknown>;
const isSearch = (r: RecordedRequest) =>
  JSON.stringify(r.body.tools ?? []).includes('"web_search') &&
  !JSON.stringify(r.body.tools ?? []).includes('"WebSearch"');

async function run(api: WireApi) {
  box = sandbox();
  // No Tavily anywhere: auto falls back to the model's own search.
  writeFileSync(join(box.home, "config.json"), JSON.stringify({}));
  const anthropic = api === "anthropic-messages";
  const model = fauxModel(api, {
    baseUrl: anthropic ? server.anthropicBaseUrl : server.openaiBaseUrl,
    serverTools: anthropic ? ["web_search", "web_fetch"] : ["web_search"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, serverTools: { webSearch: 10 } },
  });
  server.setScenario({
    turns: [
      {
        toolCalls: [{ name: "WebSearch", arguments: { query: "current Node.js LTS", max_results: 3 } }],
        usage: { input: 2000, output: 40 },
      },
      {
        serverTools: [{ name: "web_search", query: "current Node.js LTS", results }],
        text: ANSWER,
        citations: [{ url: SOURCE, title: results[0]!.title, citedText: "Node.js 24.12.0" }],
        usage: { input: 9000, output: 120 },
      },
      { text: `Node.js 24.12.0 is the LTS (${SOURCE}).`, usage: { input: 2600, output: 30 } },
    ],
  });
  const from = server.requests.length;
  agent = await startKernel({
    cwd: box.workspace,
    home: box.home,
    model: model as never,
    streamOptions: { apiKey: "model-key-only", retry: { baseDelayMs: 1 } },
    extensions: [hosted(createWebSearchExtension({ env: {} }))],
  });
  const summary = (await agent.prompt("What is the current Node.js LTS? Cite your source."))._unsafeUnwrap();
  return { summary, requests: server.requests.slice(from), agent };
}

describe.each<WireApi>(["anthropic-messages", "openai-responses"])("WebSearch via %s's own search", (api) => {
  it("searches with only the model's key, keeps the conversation's prefix, cites, journals and bills", async () => {
    const { summary, requests, agent } = await run(api);
    expect(summary.text).toBe(`Node.js 24.12.0 is the LTS (${SOURCE}).`);
    expect(requests).toHaveLength(3);
    const [first, search, last] = requests as [RecordedRequest, RecordedRequest, RecordedRequest];

    // The search request is the tool's own: the provider's server tool, no session tools.
    expect(isSearch(search)).toBe(true);
    const tools = search.body.tools as Json[];
    if (api === "anthropic-messages") {
      expect(tools).toEqual([
        expect.objectContaining({ type: "web_search_20250305", name: "web_search", max_uses: 3 }),
      ]);
    } else {
      expect(tools).toEqual([{ type: "web_search" }]);
      expect(search.body.include).toEqual(expect.arrayContaining(["web_search_call.action.sources"]));
    }
    expect(JSON.stringify(search.body)).toContain("Search the web for: current Node.js LTS");

    // The conversation's requests: same tools and system, the first a prefix of the last.
    expect(isSearch(first) || isSearch(last)).toBe(false);
    const a = cacheLines(first);
    const b = cacheLines(last);
    expect(b.slice(0, a.length - 1)).toEqual(a.slice(0, -1));
    if (api === "anthropic-messages") expect(b[0]).toBe(a[0]);
    else
      expect([last.body.instructions, last.body.tools]).toEqual([first.body.instructions, first.body.tools]);

    // What the model read: the answer, its citation and the sources, as untrusted data.
    const read = last.raw;
    expect(read).toContain(
      `Answer (from ${api === "anthropic-messages" ? "anthropic" : "openai"} web search): ${ANSWER}`,
    );
    expect(read).toContain(`[1] Node.js 24.12.0 (LTS) <${SOURCE}> — \\"Node.js 24.12.0\\"`);
    expect(read).toContain(`1. Node.js 24.12.0 (LTS)\\n   ${SOURCE}`);
    expect(read).toContain("untrusted data from the web");

    // Journaled with the tool result: the sources, the citation, the model and the fee.
    const journal = readFileSync(agent.sessionFile!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Json);
    const title = api === "anthropic-messages" ? results[1]!.title : results[1]!.url;
    const result = journal
      .map((e) => e.message as Json | undefined)
      .find((m) => m?.role === "toolResult" && m.toolName === "WebSearch") as { details: Json } | undefined;
    expect(result?.details).toMatchObject({
      provider: `${api === "anthropic-messages" ? "anthropic" : "openai"} web search`,
      query: "current Node.js LTS",
      // OpenAI's search names its sources by URL; the citation gives the cited one its title.
      results: [results[0], { url: results[1]!.url, title }],
      citations: [{ url: SOURCE, title: results[0]!.title, citedText: "Node.js 24.12.0" }],
      searches: 1,
    });

    // The run's usage holds the search request's tokens and its one search at $10 per 1,000.
    expect(summary.usage.input).toBe(2000 + 9000 + 2600);
    expect(summary.usage.serverTools).toEqual({ webSearch: 1 });
    expect(summary.usage.cost.serverTools).toBeCloseTo(0.01, 10);
    const tokens = ((2000 + 9000 + 2600) * 3 + (40 + 120 + 30) * 15) / 1e6;
    expect(summary.usage.cost.total).toBeCloseTo(tokens + 0.01, 10);
    expect(agent.usage().cost.total).toBeCloseTo(tokens + 0.01, 10);
  });
});
