// What the new models change on the wire, through the real SDKs against the mock playing each
// vendor's rules: Claude 5 (adaptive thinking steered by effort, no sampling parameters, display
// that returns the text between tool calls, model-bound and conversation-bound thinking), GPT-6
// and GPT-5.5 efforts, and the thinking switches of OpenAI-compatible servers.
import {
  type AssistantMessage,
  type Context,
  getModel,
  type Message,
  type Model,
  type StreamOptions,
  stream,
} from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drain } from "./helpers.js";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());

function catalog(ref: string): Model {
  const [provider, ...id] = ref.split("/");
  const model = getModel(provider!, id.join("/"))._unsafeUnwrap();
  const baseUrl = model.api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl;
  return { ...model, baseUrl };
}

const tools: Context["tools"] = [
  { name: "read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) },
];

async function call(model: Model, messages: Message[], options: StreamOptions = {}) {
  const from = server.requests.length;
  const run = await drain(
    stream(model, { systemPrompt: "Be brief.", messages, tools }, { apiKey: "test", ...options }),
  );
  const request = server.requests[from];
  if (!request) throw new Error("no request went out");
  return { ...run, body: request.body, headers: request.headers };
}

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });

describe("Claude 5 family on the wire", () => {
  it("asks for adaptive thinking with a display that returns the text, and drops stale blocks", async () => {
    server.setScenario({
      turns: [
        {
          thinking: "Read it first.",
          text: "Reading a.ts now.",
          toolCalls: [{ name: "read", arguments: { path: "a.ts" } }],
        },
      ],
    });
    const { body, headers, message } = await call(
      catalog("anthropic/claude-sonnet-5-5"),
      [user("fix a.ts")],
      {
        temperature: 0.3,
      },
    );
    expect(body.thinking).toEqual({
      type: "adaptive",
      display: "summarized",
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
    expect(headers["anthropic-beta"]).toBe("thinking-binding-controls-2026-08-01");
    // No effort asked: the model's default applies; no sampling parameters, no forced tools.
    expect(body).not.toHaveProperty("output_config");
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("tool_choice");
    // The text written before the tool call arrives in a thinking block, with its text.
    expect(message.stopReason).toBe("toolUse");
    expect(message.content.map((c) => (c.type === "thinking" ? `thinking:${c.thinking}` : c.type))).toEqual([
      "thinking:Read it first.",
      "thinking:Reading a.ts now.",
      "toolCall",
    ]);
  });

  it("steers depth with output_config.effort, turns Sonnet 5.5 off with between_tools, and never sends a budget", async () => {
    server.setScenario({ turns: [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }] });
    const sonnet = catalog("anthropic/claude-sonnet-5-5");
    const high = await call(sonnet, [user("x")], { reasoning: "high" });
    expect(high.body.output_config).toEqual({ effort: "high" });
    expect((high.body.thinking as { type: string }).type).toBe("adaptive");
    const off = await call(sonnet, [user("x")], { reasoning: "off" });
    expect(off.body.thinking).toEqual({ type: "between_tools" });
    expect(off.body).not.toHaveProperty("output_config");
    expect(off.last?.type).toBe("done");
    // Opus 5.5 cannot turn thinking off: "off" is its lowest effort.
    const opus = await call(catalog("anthropic/claude-opus-5-5"), [user("x")], { reasoning: "off" });
    expect(opus.body.output_config).toEqual({ effort: "low" });
    // Sonnet 5 (legacy) still takes disabled.
    const sonnet5 = await call(catalog("anthropic/claude-sonnet-5"), [user("x")], { reasoning: "off" });
    expect(sonnet5.body.thinking).toEqual({ type: "disabled" });
    for (const r of server.requests.slice(-4)) expect(JSON.stringify(r.body)).not.toContain("budget_tokens");
  });

  it("drops another model's thinking when the model changes, so the next request is accepted", async () => {
    server.setScenario({
      turns: [
        { thinking: "Opus plans.", text: "Opus answers." },
        { text: "Sonnet continues." },
        { text: "Opus again." },
      ],
    });
    const opus = catalog("anthropic/claude-opus-5-5");
    const first = await call(opus, [user("start")]);
    const thinking = first.message.content.find((c) => c.type === "thinking");
    const signature = thinking?.type === "thinking" ? thinking.signature : undefined;
    expect(signature).toMatch(/^sig_claude-opus-5-5_/);
    const history: Message[] = [user("start"), first.message, user("now on sonnet")];
    const next = await call(catalog("anthropic/claude-sonnet-5-5"), history);
    // The mock answers 400 for a block Opus signed; the request carried none, so it went through.
    expect(next.last?.type).toBe("done");
    expect(next.message.content).toMatchObject([{ type: "text", text: "Sonnet continues." }]);
    const sent = (next.body.messages as { role: string; content: { type: string; text?: string }[] }[])[1]!;
    expect(sent.content.map((b) => b.type)).toEqual(["text", "text"]);
    expect(JSON.stringify(next.body)).not.toContain("sig_claude-opus-5-5");
    // Its own thinking replays unchanged on the same model.
    const same = await call(opus, [user("start"), first.message, user("again")]);
    expect(same.last?.type).toBe("done");
    expect(JSON.stringify(same.body)).toContain(signature as string);
  });

  it("keeps Claude 4.5 on manual budgets and its sampling parameters", async () => {
    server.setScenario({ turns: [{ text: "ok" }] });
    const { body } = await call(catalog("anthropic/claude-sonnet-4-5"), [user("x")], {
      reasoning: "xhigh",
      maxTokens: 40_000,
    });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 32_000 });
  });
});

describe("OpenAI efforts on the wire", () => {
  it("maps Keel's levels onto each model's accepted set", async () => {
    server.setScenario({ turns: [{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }] });
    const effortOf = async (ref: string, reasoning: StreamOptions["reasoning"]) => {
      const { body } = await call(catalog(ref), [user("x")], { reasoning, temperature: 0.5 });
      expect(body).not.toHaveProperty("temperature");
      return (body.reasoning as { effort?: string } | undefined)?.effort;
    };
    expect(await effortOf("openai/gpt-5.5", "off")).toBe("none");
    expect(await effortOf("openai/gpt-5.5", "max")).toBe("xhigh");
    expect(await effortOf("openai/gpt-6.2-astra", "off")).toBe("low");
    expect(await effortOf("openai/gpt-6.2-sol", "max")).toBe("max");
  });
});

describe("OpenAI-compatible thinking switches", () => {
  it("sends DeepSeek's thinking type and effort, Qwen's enable_thinking, and nothing by default", async () => {
    server.setScenario({ turns: [{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }] });
    const deepseek = catalog("deepseek/deepseek-v4-pro");
    const off = await call(deepseek, [user("x")], { reasoning: "off" });
    expect(off.body.thinking).toEqual({ type: "disabled" });
    expect(off.body).not.toHaveProperty("reasoning_effort");
    const max = await call(deepseek, [user("x")], { reasoning: "max" });
    expect(max.body).toMatchObject({ thinking: { type: "enabled" }, reasoning_effort: "max" });
    const qwen = await call(catalog("dashscope/qwen3.5-plus"), [user("x")], { reasoning: "high" });
    expect(qwen.body.enable_thinking).toBe(true);
    const plain = await call(deepseek, [user("x")]);
    expect(plain.body).not.toHaveProperty("thinking");
    expect(plain.body).not.toHaveProperty("reasoning_effort");
  });
});

describe("message shapes", () => {
  it("keeps usage and cost on a Claude 5 reply priced from the catalog", async () => {
    server.setScenario({ turns: [{ text: "ok", usage: { input: 1_000_000, output: 0 } }] });
    const { message } = await call(catalog("anthropic/claude-opus-5-5"), [user("x")]);
    expect((message as AssistantMessage).usage.cost.input).toBeCloseTo(4, 10);
  });
});
