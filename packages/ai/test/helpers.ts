// Shared fixtures of the provider tests: the test models each file starts from (overriding
// only what it is about) and draining a stream into its events and final message.
import type { AssistantMessage, AssistantMessageEvent, Context, Model } from "@keel/ai";
import type { RecordedRequest } from "@keel/testing";
import { expect } from "vitest";

export type OpenAIApi = "openai-completions" | "openai-responses";

/** A one-message conversation with a system prompt. */
export const hello: Context = {
  systemPrompt: "You are terse.",
  messages: [{ role: "user", content: "Hi", timestamp: 1 }],
};

/** The request bodies a mock received since request number `from`. */
export function bodiesSince(
  mock: { requests: readonly RecordedRequest[] },
  from: number,
): Record<string, unknown>[] {
  return mock.requests.slice(from).map((r) => r.body);
}

/** An Anthropic Messages model with a reasoning flag, images and round prices. */
export function claudeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "claude-test",
    name: "Claude Test",
    api: "anthropic-messages",
    provider: "anthropic",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 200_000,
    maxOutput: 32_000,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    ...overrides,
  };
}

/** An OpenAI model for either dialect, with a reasoning flag, images and round prices. */
export function gptModel(api: OpenAIApi, overrides: Partial<Model> = {}): Model {
  return {
    id: "gpt-test",
    name: "GPT Test",
    api,
    provider: "openai",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 128_000,
    maxOutput: 16_000,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    ...overrides,
  };
}

/** Reads a stream to its end: every event, the final message and the last event. */
export async function drain(
  s: AsyncIterable<AssistantMessageEvent> & { result(): Promise<AssistantMessage> },
): Promise<{
  events: AssistantMessageEvent[];
  message: AssistantMessage;
  last: AssistantMessageEvent | undefined;
}> {
  const events: AssistantMessageEvent[] = [];
  for await (const event of s) events.push(event);
  return { events, message: await s.result(), last: events.at(-1) };
}

/** A finished text block as each dialect gives it: Responses text keeps its message item id. */
export function textBlock(api: Model["api"], text: string): Record<string, unknown> {
  return api === "openai-responses"
    ? { type: "text", text, signature: expect.stringMatching(/^msg_/) }
    : { type: "text", text };
}
