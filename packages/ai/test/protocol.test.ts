// Every event and message the providers produce is what @keel/protocol's schemas say: streamed
// from the mock server in all three dialects through the real SDKs — thinking, text with
// citations, tool calls (one with broken arguments), server-side tools, retries, refusals, context
// overflow, errors in the stream, a cut stream and an abort. A field a provider starts to emit
// without the schema knowing it fails here. (real-streams.test.ts checks recorded real traffic.)
import { type AssistantMessageEvent, type Context, type Model, stream } from "@keel/ai";
import { AssistantMessageEventSchema, AssistantMessageSchema } from "@keel/protocol";
import { type MockServer, type ScenarioTurn, startMockServer } from "@keel/testing";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeModel, drain, gptModel } from "./helpers.js";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());

const context: Context = {
  systemPrompt: "Answer.",
  messages: [{ role: "user", content: "Go.", timestamp: 1 }],
  tools: [{ name: "Read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) }],
  serverTools: [{ name: "web_search", maxUses: 2 }],
};

const TURNS: [string, ScenarioTurn[]][] = [
  [
    "thinking, cited text and tool calls",
    [
      {
        thinking: "Let me look.",
        thinkingSignature: "sig-1",
        serverTools: [
          {
            name: "web_search",
            query: "keel",
            results: [{ url: "https://example.com/keel", title: "Keel" }],
          },
        ],
        text: "Keel is a coding agent.",
        citations: [{ url: "https://example.com/keel", title: "Keel", citedText: "a coding agent" }],
        toolCalls: [
          { name: "Read", arguments: { path: "a.ts" } },
          { name: "Read", arguments: '{"path": "b.ts"' },
        ],
        chunkSize: 5,
      },
    ],
  ],
  [
    "a retried 429, then text",
    [{ kind: "error", status: 429, headers: { "retry-after": "0" } }, { text: "ok" }],
  ],
  ["a refusal", [{ text: "I can't", stopReason: "refusal" }]],
  ["the length limit", [{ text: "cut", stopReason: "length" }]],
  ["context overflow", [{ kind: "context_overflow" }]],
  ["an error inside the stream", [{ text: "partial answer", streamErrorAfterEvents: 3, chunkSize: 2 }]],
  ["a cut stream", [{ text: "partial answer", disconnectAfterEvents: 4, chunkSize: 2 }]],
  ["an HTTP error", [{ kind: "error", status: 401 }]],
];

const MODELS: [string, () => Model][] = [
  [
    "anthropic-messages",
    () => claudeModel({ baseUrl: server.anthropicBaseUrl, serverTools: ["web_search"] }),
  ],
  ["openai-completions", () => gptModel("openai-completions", { baseUrl: server.openaiBaseUrl })],
  [
    "openai-responses",
    () => gptModel("openai-responses", { baseUrl: server.openaiBaseUrl, serverTools: ["web_search"] }),
  ],
];

function problems(events: AssistantMessageEvent[]): string[] {
  return events.flatMap((event, i) =>
    [...Value.Errors(AssistantMessageEventSchema, event)]
      .slice(0, 3)
      .map((e) => `event ${i} (${event.type}) ${e.path}: ${e.message}`),
  );
}

describe.each(MODELS)("%s: events and messages match the protocol's schemas", (_api, model) => {
  it.each(TURNS)("%s", async (_name, turns) => {
    server.setScenario({ turns });
    const options = { apiKey: "test", retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } };
    const { events, message } = await drain(stream(model(), context, options));
    expect(events.length).toBeGreaterThan(1);
    expect(problems(events)).toEqual([]);
    expect([...Value.Errors(AssistantMessageSchema, message)].map((e) => `${e.path}: ${e.message}`)).toEqual(
      [],
    );
  });

  it("an aborted call", async () => {
    server.setScenario({ turns: [{ text: "slow answer", delayMs: 20, chunkSize: 1 }] });
    const controller = new AbortController();
    const s = stream(model(), context, { apiKey: "test", signal: controller.signal });
    const events: AssistantMessageEvent[] = [];
    for await (const event of s) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events.at(-1)?.type).toBe("error");
    expect(problems(events)).toEqual([]);
    expect(Value.Check(AssistantMessageSchema, await s.result())).toBe(true);
  });
});

it("refuses a streamed message carrying a field the protocol does not have", async () => {
  server.setScenario({ turns: [{ text: "hi" }] });
  const { message } = await drain(stream(MODELS[0]![1](), context, { apiKey: "test" }));
  expect(Value.Check(AssistantMessageSchema, message)).toBe(true);
  const block = { ...message.content[0], vendorField: 1 };
  expect(Value.Check(AssistantMessageSchema, { ...message, content: [block] })).toBe(false);
});
