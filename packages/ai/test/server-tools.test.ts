// Server-side tools end to end through the real SDKs against the mock: the request offers the
// provider's own web search and fetch, the reply's server blocks are kept whole with their sources
// and citations, their calls are counted and priced, a paused turn goes on in the same message,
// and a deployment that refuses encrypted reasoning is asked again without it.
import { type Context, type Model, stream } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeModel, drain, gptModel } from "./helpers.js";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());

const ask: Context = {
  systemPrompt: "Answer with sources.",
  messages: [{ role: "user", content: "What is the current Node.js LTS?", timestamp: 1 }],
  serverTools: [{ name: "web_search", maxUses: 3 }, { name: "web_fetch" }],
};

const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, serverTools: { webSearch: 10 } };

const claude = (): Model =>
  claudeModel({ baseUrl: server.anthropicBaseUrl, serverTools: ["web_search", "web_fetch"], cost: prices });
const gpt = (): Model =>
  gptModel("openai-responses", { baseUrl: server.openaiBaseUrl, serverTools: ["web_search"], cost: prices });

const search = {
  name: "web_search" as const,
  query: "Node.js LTS",
  results: [
    { url: "https://nodejs.org/en/blog/release/v24.12.0", title: "Node.js 24.12.0 (LTS)" },
    { url: "https://nodejs.org/en/about/previous-releases", title: "Node.js releases" },
  ],
};
const cited = {
  text: "The current LTS is Node.js 24.12.0.",
  citations: [
    {
      url: "https://nodejs.org/en/blog/release/v24.12.0",
      title: "Node.js 24.12.0 (LTS)",
      citedText: "Node.js 24.12.0",
    },
  ],
};

describe("Anthropic server tools", () => {
  it("offers web search and fetch, keeps their blocks, sources and citations, and bills the search", async () => {
    server.setScenario({
      turns: [
        {
          serverTools: [
            search,
            { name: "web_fetch", url: "https://nodejs.org/en/about/previous-releases", content: "Releases…" },
          ],
          ...cited,
          usage: { input: 1000, output: 100 },
        },
      ],
    });
    const from = server.requests.length;
    const { message, last } = await drain(stream(claude(), ask, { apiKey: "test" }));
    expect(last).toMatchObject({ type: "done", reason: "stop" });
    const tools = server.requests[from]!.body.tools as Record<string, unknown>[];
    expect(tools).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      expect.objectContaining({
        type: "web_fetch_20250910",
        name: "web_fetch",
        citations: { enabled: true },
      }),
    ]);
    const blocks = message.content;
    expect(blocks.map((b) => (b.type === "serverTool" ? `${b.name}:${String(b.raw.type)}` : b.type))).toEqual(
      [
        "web_search:server_tool_use",
        "web_search:web_search_tool_result",
        "web_fetch:server_tool_use",
        "web_fetch:web_fetch_tool_result",
        "text",
      ],
    );
    const [call, result] = blocks;
    expect(call).toMatchObject({
      type: "serverTool",
      input: { query: "Node.js LTS" },
      raw: { input: { query: "Node.js LTS" } },
    });
    expect(result?.type === "serverTool" && result.id).toBe(call?.type === "serverTool" && call.id);
    expect(result).toMatchObject({ sources: search.results.map(({ url, title }) => ({ url, title })) });
    const text = blocks[4];
    expect(text).toMatchObject({
      type: "text",
      text: cited.text,
      citations: [{ url: cited.citations[0]!.url, citedText: "Node.js 24.12.0" }],
    });
    // One search at $10 per 1,000 on top of the tokens; the fetch costs tokens only.
    expect(message.usage.serverTools).toEqual({ webSearch: 1, webFetch: 1 });
    expect(message.usage.cost.serverTools).toBeCloseTo(0.01, 10);
    expect(message.usage.cost.total).toBeCloseTo(0.01 + (1000 * 3 + 100 * 15) / 1e6, 10);

    // Sent back to the same API, the blocks go as they came; the cited text keeps its citations.
    const next: Context = {
      ...ask,
      messages: [...ask.messages, message, { role: "user", content: "And the one before?", timestamp: 2 }],
    };
    server.setScenario({ turns: [{ text: "Node.js 22." }] });
    await drain(stream(claude(), next, { apiKey: "test" }));
    const sent = (server.requests.at(-1)!.body.messages as { content: Record<string, unknown>[] }[])[1]!
      .content;
    expect(sent.map((b) => b.type)).toEqual([
      "server_tool_use",
      "web_search_tool_result",
      "server_tool_use",
      "web_fetch_tool_result",
      "text",
    ]);
    expect(sent[0]).toEqual({ ...(call as { raw: object }).raw });
    expect(sent[4]).toMatchObject({
      text: cited.text,
      citations: [
        expect.objectContaining({ type: "web_search_result_location", encrypted_index: expect.any(String) }),
      ],
    });
  });

  it("goes on after pause_turn in the same message, with both responses' blocks and usage", async () => {
    server.setScenario({
      turns: [
        { serverTools: [search], stopReason: "pause", usage: { input: 500, output: 20 } },
        { ...cited, usage: { input: 900, output: 30 } },
      ],
    });
    const from = server.requests.length;
    const { message, events } = await drain(stream(claude(), ask, { apiKey: "test" }));
    expect(events.filter((e) => e.type === "done" || e.type === "error")).toEqual([
      expect.objectContaining({ type: "done", reason: "stop" }),
    ]);
    expect(server.requests.length - from).toBe(2);
    // The second request sends the paused message back as the conversation's last message.
    const second = server.requests[from + 1]!.body.messages as {
      role: string;
      content: { type: string }[];
    }[];
    expect(second.at(-1)?.role).toBe("assistant");
    expect(second.at(-1)?.content.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result"]);
    expect(message.content.map((b) => b.type)).toEqual(["serverTool", "serverTool", "text"]);
    expect({ input: message.usage.input, output: message.usage.output }).toEqual({ input: 1400, output: 50 });
    expect(message.usage.serverTools).toEqual({ webSearch: 1 });
  });

  it("reports a refusal with its details, and leaves the refused turn out of the next request", async () => {
    server.setScenario({ turns: [{ text: "Here is how", stopReason: "refusal" }, { text: "ok" }] });
    const { message } = await drain(stream(claude(), ask, { apiKey: "test" }));
    expect(message.stopReason).toBe("error");
    expect(message.error).toMatchObject({
      type: "refusal",
      category: "cyber",
      explanation: "keel mock server: a scripted refusal.",
    });
    const next: Context = {
      messages: [...ask.messages, message, { role: "user", content: "Something else.", timestamp: 2 }],
    };
    await drain(stream(claude(), next, { apiKey: "test" }));
    const sent = server.requests.at(-1)!.body.messages as { role: string }[];
    expect(sent.map((m) => m.role)).toEqual(["user", "user"]);
  });

  it("offers nothing a model has not got", async () => {
    server.setScenario({ turns: [{ text: "no search here" }] });
    await drain(stream({ ...claude(), serverTools: [] }, ask, { apiKey: "test" }));
    expect(server.requests.at(-1)!.body.tools).toBeUndefined();
  });
});

describe("OpenAI Responses web search", () => {
  it("offers web_search with its sources, keeps the call item and the url citations, and bills it", async () => {
    server.setScenario({ turns: [{ serverTools: [search], ...cited, usage: { input: 800, output: 60 } }] });
    const { message } = await drain(stream(gpt(), ask, { apiKey: "test" }));
    const body = server.requests.at(-1)!.body;
    expect(body.tools).toEqual([{ type: "web_search" }]);
    expect(body.include).toEqual(expect.arrayContaining(["web_search_call.action.sources"]));
    expect(message.content[0]).toMatchObject({
      type: "serverTool",
      name: "web_search",
      input: { type: "search", query: "Node.js LTS" },
      sources: search.results.map(({ url }) => ({ url })),
    });
    expect(message.content[1]).toMatchObject({
      type: "text",
      text: cited.text,
      citations: [{ url: cited.citations[0]!.url }],
    });
    expect(message.usage.serverTools).toEqual({ webSearch: 1 });
    expect(message.usage.cost.serverTools).toBeCloseTo(0.01, 10);

    // Back to the same API, the call item goes as it came.
    server.setScenario({ turns: [{ text: "ok" }] });
    await drain(
      stream(
        gpt(),
        { messages: [...ask.messages, message, { role: "user", content: "Thanks", timestamp: 2 }] },
        { apiKey: "test" },
      ),
    );
    const input = server.requests.at(-1)!.body.input as Record<string, unknown>[];
    expect(input[1]).toMatchObject({
      type: "web_search_call",
      id: (message.content[0] as { id: string }).id,
    });
  });

  it("asks a deployment that refuses encrypted reasoning again without it, and remembers", async () => {
    const refusal = {
      kind: "error" as const,
      status: 400,
      body: {
        error: {
          message: "Encrypted content is not supported with this model.",
          type: "invalid_request_error",
          param: "include",
          code: null,
        },
      },
    };
    server.setScenario({ turns: [refusal, { text: "plain" }, { text: "again" }] });
    const model = gptModel("openai-responses", {
      id: "plain-deployment",
      baseUrl: server.openaiBaseUrl,
      reasoning: false,
    });
    const from = server.requests.length;
    const first = await drain(stream(model, { messages: ask.messages }, { apiKey: "test" }));
    expect(first.message.stopReason).toBe("stop");
    await drain(stream(model, { messages: ask.messages }, { apiKey: "test" }));
    const includes = server.requests.slice(from).map((r) => r.body.include);
    expect(includes).toEqual([["reasoning.encrypted_content"], undefined, undefined]);
  });
});
