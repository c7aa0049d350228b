// One conversation across three wire protocols: started on Anthropic, continued on OpenAI Chat
// Completions, then on OpenAI Responses, then back on Anthropic. Every turn is produced by the
// real provider against the mock server; the assertions read the request bodies that went out.
import {
  type AssistantMessage,
  type Context,
  INTERRUPTED_TOOL_RESULT,
  type Message,
  type Model,
  type StreamOptions,
  stream,
  type ToolResultMessage,
} from "@keel/ai";
import { type MockServer, type RecordedRequest, startMockServer } from "@keel/testing";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeModel, gptModel, type OpenAIApi } from "./helpers.js";

let server: MockServer;

beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(async () => {
  await server.close();
});

const price = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };

function claude(): Model {
  return claudeModel({ baseUrl: server.anthropicBaseUrl, cost: price });
}

function gpt(api: OpenAIApi): Model {
  return gptModel(api, { baseUrl: server.openaiBaseUrl, cost: price });
}

const tools: Context["tools"] = [
  { name: "read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) },
  { name: "ls", description: "List a directory", parameters: Type.Object({ dir: Type.String() }) },
];

/** Anthropic ids may carry characters and lengths other APIs reject. */
const ANSWERED_ID = "toolu_01A09q90qw90lq917835lq9.with:odd/chars-and-a-long-tail";
const ORPHAN_ID = "toolu_02orphan";
const CLAUDE_SIGNATURE = "sig_claude_EqQBCkYIBRgCKkB";
const RESPONSES_SECRET = "enc_responses_gAAAAABo";

async function turn(model: Model, messages: Message[], options: StreamOptions = {}) {
  const before = server.requests.length;
  const s = stream(model, { systemPrompt: "You fix bugs.", messages, tools }, { apiKey: "test", ...options });
  const message: AssistantMessage = await s.result();
  const request: RecordedRequest | undefined = server.requests[before];
  if (!request) throw new Error("the provider sent no request");
  return { message, request };
}

function result(toolCallId: string, toolName: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 0,
  };
}

function user(text: string): Message {
  return { role: "user", content: text, timestamp: 0 };
}

function toolCalls(message: AssistantMessage) {
  return message.content.filter((c) => c.type === "toolCall");
}

type Json = Record<string, unknown>;

describe("cross-provider replay: Anthropic → OpenAI Chat → OpenAI Responses → Anthropic", () => {
  it("keeps the conversation valid for each target and each provider's own proofs intact", async () => {
    server.setScenario({
      turns: [
        // 1. Anthropic: signed thinking, text, two tool calls (one will never get a result).
        {
          thinking: "The bug is probably in a.ts; read it and list the folder.",
          thinkingSignature: CLAUDE_SIGNATURE,
          text: "Let me look.",
          toolCalls: [
            { id: ANSWERED_ID, name: "read", arguments: { path: "a.ts" } },
            { id: ORPHAN_ID, name: "ls", arguments: { dir: "." } },
          ],
        },
        // 2. Chat Completions continues with a tool call of its own.
        {
          text: "Chat takes over.",
          toolCalls: [{ id: "call_chat_1", name: "ls", arguments: { dir: "src" } }],
        },
        // 3. Responses continues with encrypted reasoning and a tool call.
        {
          thinking: "Responses reasons about src.",
          thinkingSignature: RESPONSES_SECRET,
          toolCalls: [{ id: "call_resp_1", name: "read", arguments: { path: "src/b.ts" } }],
        },
        // 4. Back on Anthropic.
        { text: "Fixed." },
      ],
    });

    // ── 1. Anthropic ──────────────────────────────────────────────────────────────────────
    const history: Message[] = [user("Find the bug.")];
    const a = await turn(claude(), history, { reasoning: "high", maxTokens: 8000 });
    expect(a.message.stopReason).toBe("toolUse");
    expect(a.message.content[0]).toMatchObject({
      type: "thinking",
      signature: CLAUDE_SIGNATURE,
      source: { provider: "anthropic", api: "anthropic-messages" },
    });
    expect(toolCalls(a.message).map((c) => c.id)).toEqual([ANSWERED_ID, ORPHAN_ID]);
    // Only the first call gets a result: the second is an orphan.
    history.push(a.message, result(ANSWERED_ID, "read", "export const a = 1;"), user("Continue on GPT."));

    // ── 2. OpenAI Chat Completions ────────────────────────────────────────────────────────
    const c = await turn(gpt("openai-completions"), history, { sessionId: "sess-x" });
    expect(c.message.stopReason).toBe("toolUse");
    const chat = c.request.body.messages as Json[];
    expect(chat.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
    const chatAssistant = chat[2] as Json & { tool_calls: { id: string; function: { name: string } }[] };
    // Foreign thinking became plain text; the signature went nowhere.
    expect(chatAssistant.content).toBe(
      "The bug is probably in a.ts; read it and list the folder.\n\nLet me look.",
    );
    expect(chatAssistant).not.toHaveProperty("reasoning_content");
    expect(c.request.raw).not.toContain(CLAUDE_SIGNATURE);
    // Ids fit Chat Completions' rules, and each call has its result right after it.
    const chatIds = chatAssistant.tool_calls.map((t) => t.id);
    for (const id of chatIds) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(new Set(chatIds).size).toBe(2);
    expect(chat[3]).toEqual({ role: "tool", tool_call_id: chatIds[0], content: "export const a = 1;" });
    expect(chat[4]).toEqual({ role: "tool", tool_call_id: chatIds[1], content: INTERRUPTED_TOOL_RESULT });
    history.push(c.message, result("call_chat_1", "ls", "b.ts"), user("Continue on Responses."));

    // ── 3. OpenAI Responses ───────────────────────────────────────────────────────────────
    const r = await turn(gpt("openai-responses"), history, { reasoning: "medium", sessionId: "sess-x" });
    expect(r.message.stopReason).toBe("toolUse");
    const input = r.request.body.input as Json[];
    expect(r.request.raw).not.toContain(CLAUDE_SIGNATURE);
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      "user",
      "message", // Anthropic's thinking (as text) + its text
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output", // the synthetic result for the orphan
      "user",
      "message", // Chat's text
      "function_call",
      "function_call_output",
      "user",
    ]);
    expect(input[1]).toEqual({
      type: "message",
      role: "assistant",
      content: "The bug is probably in a.ts; read it and list the folder.\n\nLet me look.",
    });
    const calls = input.filter((i) => i.type === "function_call");
    const outputs = input.filter((i) => i.type === "function_call_output");
    for (const call of calls) {
      expect(call.call_id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      // Foreign calls carry no item id: it would have to pair with reasoning this API never made.
      expect(call).not.toHaveProperty("id");
      expect(outputs.filter((o) => o.call_id === call.call_id)).toHaveLength(1);
    }
    expect(calls.map((call) => call.call_id)).toEqual(outputs.map((o) => o.call_id));
    expect(outputs.map((o) => o.output)).toEqual(["export const a = 1;", INTERRUPTED_TOOL_RESULT, "b.ts"]);
    expect(calls[2]).toMatchObject({ call_id: "call_chat_1", name: "ls", arguments: '{"dir":"src"}' });

    const [reasoning, respCall] = r.message.content;
    expect(reasoning).toMatchObject({ type: "thinking", thinking: "Responses reasons about src." });
    expect(respCall).toMatchObject({ type: "toolCall", name: "read" });
    const respCallId = respCall?.type === "toolCall" ? respCall.id : "";
    expect(respCallId).toMatch(/^call_resp_1\|fc_/);
    history.push(r.message, result(respCallId, "read", "export const b = 2;"), user("Back to Claude."));

    // Responses again: its own reasoning item and item id come back untouched.
    server.setScenario({ turns: [{ text: "still here" }, { text: "Fixed." }] });
    const again = await turn(gpt("openai-responses"), history, { reasoning: "medium" });
    const againInput = again.request.body.input as Json[];
    const ownReasoning = againInput.find((i) => i.type === "reasoning");
    expect(ownReasoning).toMatchObject({ encrypted_content: RESPONSES_SECRET });
    expect(againInput.find((i) => i.call_id === "call_resp_1" && i.type === "function_call")).toMatchObject({
      id: respCallId.split("|")[1],
    });
    expect(
      againInput.find((i) => i.call_id === "call_resp_1" && i.type === "function_call_output"),
    ).toBeDefined();

    // ── 4. Back to Anthropic ──────────────────────────────────────────────────────────────
    const back = await turn(claude(), history, { reasoning: "high", maxTokens: 8000 });
    expect(back.message.stopReason).toBe("stop");
    const messages = back.request.body.messages as { role: string; content: Json[] | string }[];
    const firstAssistant = messages.find((m) => m.role === "assistant");
    // Anthropic's own thinking is replayed as signed thinking, byte for byte.
    expect((firstAssistant?.content as Json[] | undefined)?.[0]).toEqual({
      type: "thinking",
      thinking: "The bug is probably in a.ts; read it and list the folder.",
      signature: CLAUDE_SIGNATURE,
    });
    // The Responses reasoning became text; its encrypted content does not leak to Anthropic.
    expect(back.request.raw).not.toContain(RESPONSES_SECRET);
    expect(back.request.raw).toContain("Responses reasons about src.");
    // Every tool_use id fits Anthropic's rules and has exactly one tool_result.
    const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const uses = blocks.filter((b) => b.type === "tool_use");
    const results = blocks.filter((b) => b.type === "tool_result");
    expect(uses).toHaveLength(4);
    for (const use of uses) {
      expect(use.id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(results.filter((res) => res.tool_use_id === use.id)).toHaveLength(1);
    }
  });
});
