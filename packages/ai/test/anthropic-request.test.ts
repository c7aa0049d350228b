// The Anthropic request as it reaches the server through the real SDK: history, tools and
// results converted, cache breakpoints, headers, temperature, images for text-only models.
import { type Context, emptyUsage, type Model, type StreamOptions, stream } from "@keel/ai";
import { createFauxFetch, FAUX_ORIGIN, type MockServer, startMockServer } from "@keel/testing";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodiesSince, claudeModel, drain, hello } from "./helpers.js";

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});

function model(overrides: Partial<Model> = {}): Model {
  return claudeModel({ baseUrl: server.anthropicBaseUrl, apiKeyEnv: "ANTHROPIC_API_KEY", ...overrides });
}

function run(context: Context, options: StreamOptions = {}, m: Model = model()) {
  return drain(stream(m, context, { apiKey: "test", ...options }));
}

describe("anthropic adapter: request conversion", () => {
  const tools = [
    { name: "read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) },
    { name: "grep", description: "Search files", parameters: Type.Object({ pattern: Type.String() }) },
  ];
  const history: Context = {
    systemPrompt: "System rules.",
    tools,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        ],
        timestamp: 1,
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "", signature: "opaque-redacted", redacted: true },
          { type: "text", text: "Checking." },
          { type: "toolCall", id: "toolu_a", name: "read", arguments: { path: "a.ts" } },
          { type: "toolCall", id: "toolu_b", name: "grep", arguments: { pattern: "x" } },
        ],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-test",
        usage: { ...emptyUsage(), input: 1, output: 1, totalTokens: 2 },
        stopReason: "toolUse",
        timestamp: 2,
      },
      {
        role: "toolResult",
        toolCallId: "toolu_a",
        toolName: "read",
        content: [
          { type: "text", text: "file body" },
          { type: "image", data: "aW1n", mimeType: "image/jpeg" },
        ],
        isError: false,
        timestamp: 3,
      },
      {
        role: "toolResult",
        toolCallId: "toolu_b",
        toolName: "grep",
        content: [{ type: "text", text: "bad pattern" }],
        isError: true,
        timestamp: 4,
      },
    ],
  };

  it("converts history, tools and results, with cache breakpoints on system, last tool, the previous request's last block and the last block", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    let payload: unknown;
    const { last } = await run(history, { maxTokens: 2048, onPayload: (p) => (payload = p) });
    expect(last?.type).toBe("done");
    const [body] = bodiesSince(server, from);
    expect(body).toEqual(JSON.parse(JSON.stringify(payload)));
    expect(body?.max_tokens).toBe(2048);
    expect(body?.stream).toBe(true);
    expect(body?.system).toEqual([
      { type: "text", text: "System rules.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body?.tools).toEqual([
      {
        name: "read",
        description: "Read a file",
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
      {
        name: "grep",
        description: "Search files",
        input_schema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          // The previous request's last message (the one before the model's latest reply): the
          // fourth marker, so that request's cache stays within the lookback of this one.
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" },
            cache_control: { type: "ephemeral" },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: "opaque-redacted" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.ts" } },
          { type: "tool_use", id: "toolu_b", name: "grep", input: { pattern: "x" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_a",
            content: [
              { type: "text", text: "file body" },
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "aW1n" } },
            ],
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_b",
            content: [{ type: "text", text: "bad pattern" }],
            is_error: true,
            cache_control: { type: "ephemeral" },
          },
        ],
      },
    ]);
  });

  it("counts at most four cache breakpoints and uses the 1h TTL for long retention", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    await run(history, { cacheRetention: "long" });
    const [request] = server.requests.slice(from);
    const markers = request?.raw.match(/"cache_control"/g) ?? [];
    expect(markers).toHaveLength(4);
    expect(request?.raw.match(/"cache_control":\{"type":"ephemeral","ttl":"1h"\}/g)).toHaveLength(4);
  });

  it("places the history breakpoint before a trailing one-request reminder, never on it", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    const reminder = {
      role: "user" as const,
      content: "<system-reminder>todo: 2 open</system-reminder>",
      timestamp: 5,
      synthetic: true,
    };
    await run({ ...history, messages: [...history.messages, reminder] });
    const [request] = server.requests.slice(from);
    const messages = request?.body.messages as { role: string; content: Record<string, unknown>[] }[];
    const last = messages.at(-1)!;
    expect(last.content).toEqual([{ type: "text", text: reminder.content }]);
    // The tool results before it carry the marker: the next request still contains them.
    const results = messages.at(-2)!;
    expect(results.content.at(-1)).toMatchObject({
      type: "tool_result",
      cache_control: { type: "ephemeral" },
    });
    // System, last tool, the previous request's last message, the tool results: four.
    expect(request?.raw.match(/"cache_control"/g)).toHaveLength(4);
  });

  it("sends no cache markers with cacheRetention none; user text is always sent as blocks", async () => {
    server.setScenario({ turns: [{ text: "done" }, { text: "done" }] });
    const from = server.requests.length;
    await run(history, { cacheRetention: "none" });
    await run(hello, { cacheRetention: "none", temperature: 0.2 });
    const [first, second] = server.requests.slice(from);
    expect(first?.raw).not.toContain("cache_control");
    expect(second?.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    expect(second?.body.system).toEqual([{ type: "text", text: "You are terse." }]);
    // The SDK's API version rejects sampling parameters, so none is sent unless the version is pinned.
    expect(second?.body).not.toHaveProperty("temperature");
  });

  it("sends temperature without thinking on a model pinned to anthropic-version 2023-06-01", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    const pinned = model({ headers: { "anthropic-version": "2023-06-01" } });
    await run(hello, { temperature: 0.2 }, pinned);
    const [request] = server.requests.slice(from);
    expect(request?.body.temperature).toBe(0.2);
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("passes the API key and model and call headers to the server", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    await run(
      hello,
      { apiKey: "sk-test-key", headers: { "x-call": "1" } },
      model({ headers: { "x-model": "m" } }),
    );
    const [request] = server.requests.slice(from);
    expect(JSON.stringify(request?.headers)).toContain("sk-test-key");
    expect(request?.headers["x-call"]).toBe("1");
    expect(request?.headers["x-model"]).toBe("m");
  });

  it("sends through options.fetch when given (the in-process faux fetch, no socket)", async () => {
    const faux = createFauxFetch({ turns: [{ text: "from the faux fetch" }] });
    const from = server.requests.length;
    const { message } = await run(hello, { fetch: faux.fetch }, model({ baseUrl: FAUX_ORIGIN }));
    expect(message.content).toEqual([{ type: "text", text: "from the faux fetch" }]);
    expect(faux.requests).toHaveLength(1);
    expect(faux.requests[0]?.path).toBe("/v1/messages");
    expect(server.requests.length).toBe(from);
  });

  it("replaces images with a note for a text-only model", async () => {
    server.setScenario({ turns: [{ text: "done" }] });
    const from = server.requests.length;
    await run(
      { messages: history.messages.slice(0, 1) },
      { cacheRetention: "none" },
      model({ input: ["text"] }),
    );
    const [body] = bodiesSince(server, from);
    expect(body?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          { type: "text", text: "(An image was omitted: claude-test does not accept images.)" },
        ],
      },
    ]);
  });
});
