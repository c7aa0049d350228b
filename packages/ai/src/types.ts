// The provider-neutral vocabulary: messages, content blocks, models, usage, events, errors.
// Everything here is plain JSON so it crosses process boundaries unchanged.
import type { TSchema } from "@sinclair/typebox";

/** The wire protocols Keel speaks. OpenAI-compatible servers use "openai-completions". */
export type Api = "anthropic-messages" | "openai-completions" | "openai-responses";

export interface TextContent {
  type: "text";
  text: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /**
   * Opaque proof of the thinking for the provider that produced it: an Anthropic signature,
   * or a serialized OpenAI Responses reasoning item (with its encrypted content).
   */
  signature?: string;
  /** Anthropic redacted thinking: `thinking` is empty and `signature` holds the data. */
  redacted?: boolean;
  /** Which provider+api made the signature, so replay on another provider can drop it. */
  source?: { provider: string; api: Api };
}

export interface ImageContent {
  type: "image";
  /** base64 without the data: prefix */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
  /**
   * Sent with one request only and never kept in the history (a reminder): providers place no
   * cache breakpoint on it, since the next request will not contain it.
   */
  synthetic?: boolean;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | "context_overflow";

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Reasoning tokens, already included in `output`. */
  reasoning: number;
  totalTokens: number;
  cost: Cost;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  /** Set when stopReason is error, aborted or context_overflow. */
  error?: AiError;
  responseId?: string;
  timestamp: number;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  isError: boolean;
  /** Structured, JSON-safe data for UIs; never sent to the model. */
  details?: unknown;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as the model sees it. */
export interface Tool {
  name: string;
  description: string;
  parameters: TSchema;
}

export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
}

export interface ModelCost {
  /** USD per million tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Per-endpoint differences among OpenAI-compatible servers. Data, not code paths by model id. */
export interface OpenAICompat {
  /** Field carrying streamed reasoning text in chat deltas (DeepSeek, Qwen: reasoning_content). */
  reasoningField?: "reasoning_content" | "reasoning";
  /** "max_completion_tokens" (OpenAI) or "max_tokens" (most compatible servers). */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** Whether the server accepts stream_options.include_usage. */
  supportsUsageInStreaming?: boolean;
  /** Whether the server accepts `reasoning_effort`. */
  supportsReasoningEffort?: boolean;
  /** Whether the "developer" role is accepted for system prompts. */
  supportsDeveloperRole?: boolean;
  /** Whether `prompt_cache_key` may be sent for cache routing. */
  supportsPromptCacheKey?: boolean;
}

export interface Model {
  id: string;
  name: string;
  api: Api;
  /** Provider id: anthropic, openai, deepseek, openrouter, ollama, … */
  provider: string;
  baseUrl?: string;
  /** Environment variable holding the key for this provider. */
  apiKeyEnv?: string;
  reasoning: boolean;
  /**
   * How the model takes extended thinking (Anthropic): "budget" (thinking tokens set per request,
   * the default) or "adaptive" (the model decides; effort steers it). Newer models accept only
   * adaptive.
   */
  thinking?: "budget" | "adaptive";
  input: ("text" | "image")[];
  contextWindow: number;
  maxOutput: number;
  cost: ModelCost;
  headers?: Record<string, string>;
  compat?: OpenAICompat;
}

export type ReasoningEffort = "minimal" | "low" | "medium" | "high";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface StreamOptions {
  apiKey?: string;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** Omit to disable extended thinking / reasoning. */
  reasoning?: ReasoningEffort;
  /** Routes OpenAI prompt caching and tags requests. */
  sessionId?: string;
  /** Prompt caching: "none" sends no cache markers. Default "short". */
  cacheRetention?: "none" | "short" | "long";
  retry?: Partial<RetryPolicy>;
  headers?: Record<string, string>;
  /** Replaces the global fetch (tests use the in-process faux fetch). */
  fetch?: typeof globalThis.fetch;
  /** Sees the exact request body before it is sent. */
  onPayload?: (payload: unknown) => void;
}

/** Expected failures, as JSON-safe tagged values. */
export type AiError =
  | { type: "http"; status: number; message: string; retryAfterMs?: number }
  | { type: "network"; message: string }
  | { type: "aborted"; message: string }
  | { type: "context_overflow"; message: string }
  | { type: "protocol"; message: string }
  | { type: "invalid_tool_arguments"; message: string; toolCallId: string; toolName: string }
  | { type: "config"; message: string };

export type DoneReason = "stop" | "length" | "toolUse";
export type ErrorReason = "error" | "aborted" | "context_overflow";

export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  /** A failed attempt that will be retried after `delayMs`. Nothing was streamed yet. */
  | { type: "retry"; attempt: number; delayMs: number; error: AiError }
  | { type: "done"; reason: DoneReason; message: AssistantMessage }
  | { type: "error"; reason: ErrorReason; error: AiError; message: AssistantMessage };
