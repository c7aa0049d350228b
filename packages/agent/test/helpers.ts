// Test fixtures: an Agent wired to the in-process faux provider, an event recorder and small tools.
import type { Message, Model, ToolResultMessage } from "@keel/ai";
import {
  createFauxFetch,
  type FauxFetch,
  fauxModel,
  type RecordedRequest,
  type ScenarioStep,
} from "@keel/testing";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import {
  Agent,
  type AgentEvent,
  type AgentOptions,
  type AgentTool,
  type AgentToolResult,
} from "../src/index.js";

export interface Harness {
  agent: Agent;
  faux: FauxFetch;
  events: AgentEvent[];
}

export function createHarness(turns: ScenarioStep[], options: Partial<AgentOptions> = {}): Harness {
  const faux = createFauxFetch({ turns });
  const model: Model = fauxModel("anthropic-messages");
  const agent = new Agent({
    model,
    systemPrompt: "You are a test agent.",
    ...options,
    streamOptions: {
      apiKey: "test-key",
      fetch: faux.fetch,
      retry: { maxRetries: 0 },
      ...options.streamOptions,
    },
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => {
    events.push(e);
  });
  return { agent, faux, events };
}

export function text(result: AgentToolResult | ToolResultMessage): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

export function toolResults(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

/** The Anthropic request's messages, as sent. */
export function sentMessages(request: RecordedRequest | undefined): { role: string; content: unknown }[] {
  if (!request) throw new Error("no such request");
  return request.body.messages as { role: string; content: unknown }[];
}

export function defineTool<T extends TSchema>(
  name: string,
  parameters: T,
  execute: (args: Static<T>, ctx: Parameters<AgentTool<T>["execute"]>[1]) => Promise<AgentToolResult>,
  extra: Partial<AgentTool<T>> = {},
): AgentTool<T> {
  return { name, description: `The ${name} tool.`, parameters, execute, ...extra };
}

export const EchoParams = Type.Object({ value: Type.String() });

/** Returns "echo:<value>". */
export function echoTool(
  name = "echo",
  extra: Partial<AgentTool<typeof EchoParams>> = {},
): AgentTool<typeof EchoParams> {
  return defineTool(
    name,
    EchoParams,
    async (args) => ({ content: [{ type: "text", text: `echo:${args.value}` }] }),
    extra,
  );
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
