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
  /**
   * Set when the model's arguments were not one JSON object: says what was wrong and how the
   * text began. `arguments` is then `{}`; the call must not run (the agent loop answers it with
   * an error result so the model can send it again), and its siblings are unaffected.
   */
  argumentsError?: string;
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

/** Prices of one long-context tier: the whole request is billed at it once its prompt passes the line. */
export interface PriceTier {
  /** The tier applies when input + cache read + cache write tokens exceed this many. */
  aboveInputTokens: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelCost {
  /** USD per million tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Long-context tiers (e.g. OpenAI's "over 272K input"), lowest line first. */
  tiers?: PriceTier[];
  /** Prices the vendor does not publish (or Keel could not verify): they count as 0. */
  unknown?: ("input" | "output" | "cacheRead" | "cacheWrite")[];
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
  /**
   * How thinking is switched on and off: `thinking: {type: "enabled" | "disabled"}` (DeepSeek,
   * GLM) or `enable_thinking: true | false` (Qwen). Omitted: the server has no switch.
   */
  thinkingSwitch?: "thinking-type" | "enable_thinking";
}

/** Reasoning effort values across providers; `REASONING_EFFORTS` orders them weakest first. */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** What a caller may ask for: thinking off, or an effort (mapped onto what the model accepts). */
export type ThinkingLevel = "off" | ReasoningEffort;

/** How a model thinks and which requests about it the provider accepts. */
export interface ThinkingSpec {
  /**
   * How a request asks for thinking: "adaptive" (Anthropic adaptive thinking, depth steered by
   * `output_config.effort`), "budget" (Anthropic manual `budget_tokens`), "effort" (OpenAI
   * reasoning effort), "toggle" (an on/off switch, `compat.thinkingSwitch`, with
   * `reasoning_effort` when `efforts` lists any).
   */
  mode: "adaptive" | "budget" | "effort" | "toggle";
  /** Effort values the model accepts, weakest first ("none" is `off: "effort-none"`, not listed here). */
  efforts: readonly ReasoningEffort[];
  /** The effort the provider applies when a request names none; undefined when not published. */
  defaultEffort?: ReasoningEffort;
  /** Whether the model thinks when a request says nothing about thinking. */
  defaultOn: boolean;
  /**
   * How thinking is turned off: leave the field out ("omit"), `{type: "disabled"}`, Anthropic's
   * `{type: "between_tools"}` (the lowest setting on Claude Sonnet 5.5), or effort `none`
   * (OpenAI). Undefined: it cannot be turned off; "off" then means the lowest effort.
   */
  off?: "omit" | "disabled" | "between_tools" | "effort-none";
  /** Efforts that may not be combined with `off: "between_tools"` (the API answers 400). */
  offMaxEffort?: ReasoningEffort;
  /**
   * Anthropic preserved thinking: a thinking block is bound to the conversation before it, and
   * a request whose earlier messages changed is rejected unless it asks the API to drop the
   * stale blocks. Keel asks (see providers/anthropic-request.ts).
   */
  prefixBound?: boolean;
  /** The short notes the model writes between tool calls arrive as thinking blocks (Claude Sonnet 5.5). */
  notesInThinking?: boolean;
}

/** How many characters of text one token holds for a tokenizer family (for estimates only). */
export interface TokenizerInfo {
  family: string;
  charsPerToken: number;
}

/** Where a catalog row's facts come from. */
export interface ModelSource {
  /** The vendor page (or, where the vendor's page was not available, the page the figures came from). */
  url: string;
  /** The day the facts were checked, YYYY-MM-DD. */
  checked: string;
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
  /** How the model thinks, which efforts it takes and its default; see `resolveThinking`. */
  thinking?: ThinkingSpec;
  /** False when the API rejects temperature / top_p / top_k (Claude 5 family, OpenAI reasoning models). */
  samplingParams?: boolean;
  input: ("text" | "image")[];
  contextWindow: number;
  maxOutput: number;
  cost: ModelCost;
  /** Tokenizer family for token estimates; default 4 characters a token. */
  tokenizer?: TokenizerInfo;
  /** Superseded by a newer model of the vendor: still callable, not recommended. */
  legacy?: boolean;
  /** A one-line fact worth showing (deprecation date, retirement, a price rule). */
  note?: string;
  source?: ModelSource;
  headers?: Record<string, string>;
  compat?: OpenAICompat;
}

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
  /** Sent only to models that accept sampling parameters (`model.samplingParams`). */
  temperature?: number;
  /**
   * Thinking: "off" or an effort, mapped onto what the model accepts (`resolveThinking`).
   * Omitted: the model's own default (some models think unless told not to).
   */
  reasoning?: ThinkingLevel;
  /** Routes OpenAI prompt caching and tags requests. */
  sessionId?: string;
  /** Prompt caching: "none" sends no cache markers. Default "short". */
  cacheRetention?: "none" | "short" | "long";
  retry?: Partial<RetryPolicy>;
  headers?: Record<string, string>;
  /**
   * Milliseconds the stream may stay silent — waiting for the response headers, or between two
   * chunks — before the attempt is dropped as a network failure (retried like a cut stream while
   * nothing was streamed). Default 300000 (5 minutes); 0 turns the timeout off.
   */
  idleTimeoutMs?: number;
  /**
   * The most one reply may take in all, from its request to its last chunk, retries included: a
   * stream that keeps trickling (a chunk now and then, so the idle timeout never fires) or never
   * ends is dropped with a `reply_timeout` error, keeping what it streamed. Default 3600000 (one
   * hour); 0 turns the bound off.
   */
  replyTimeoutMs?: number;
  /**
   * The most one reply may stream, in characters (UTF-16 code units) of text, thinking,
   * signatures and tool arguments. The reply is also bounded by its output cap: 64 characters per
   * token of `maxTokens` (the model's `maxOutput` by default). Past the smaller bound the stream
   * is dropped with a `reply_too_large` error. Default 16 Mi (16,777,216).
   */
  maxReplyChars?: number;
  /** Replaces the global fetch (tests use the in-process faux fetch). */
  fetch?: typeof globalThis.fetch;
  /** Sees the exact request body before it is sent. */
  onPayload?: (payload: unknown) => void;
}

/** Why an HTTP answer was a failure, from its status: each asks the user to check something else. */
export type HttpErrorReason =
  | "bad_request"
  | "auth"
  | "forbidden"
  | "not_found"
  | "timeout"
  | "conflict"
  | "too_large"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "other";

/** Why a connection failed, from the socket, TLS or proxy error under it. */
export type NetworkErrorReason =
  | "refused"
  | "unreachable"
  | "dns"
  | "timeout"
  | "reset"
  /** The stream sent nothing for the idle timeout. */
  | "idle"
  | "tls"
  | "proxy"
  | "other";

/**
 * Expected failures, as JSON-safe tagged values. For `http` and `network`, `message` says what
 * happened, where (`endpoint`: the URL tried) and what to check (`hint`, also in the message).
 */
export type AiError =
  | {
      type: "http";
      status: number;
      reason: HttpErrorReason;
      message: string;
      endpoint?: string;
      hint?: string;
      retryAfterMs?: number;
      /** The server accepted the request, then sent this error inside the stream (its status is the error type's). */
      inStream?: boolean;
    }
  | {
      type: "network";
      reason: NetworkErrorReason;
      message: string;
      endpoint?: string;
      hint?: string;
      /** The socket or TLS error code (`ECONNREFUSED`). */
      code?: string;
      /** The proxy that failed (without credentials) and the variable that named it. */
      proxy?: string;
      proxyVariable?: string;
    }
  | { type: "aborted"; message: string }
  | { type: "context_overflow"; message: string }
  | { type: "protocol"; message: string }
  /** The reply passed its size bound (StreamOptions.maxReplyChars, or its output cap). */
  | { type: "reply_too_large"; message: string; limitChars: number }
  /** The reply passed its time bound (StreamOptions.replyTimeoutMs), retries included. */
  | { type: "reply_timeout"; message: string; limitMs: number }
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
  /** A failed attempt that will be retried after `delayMs`; `maxRetries` is the policy's bound. */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; error: AiError }
  | { type: "done"; reason: DoneReason; message: AssistantMessage }
  | { type: "error"; reason: ErrorReason; error: AiError; message: AssistantMessage };

/** A provider in the catalog: its defaults and where its rows were checked. Plain data. */
export interface ProviderInfo {
  id: string;
  name: string;
  /** The model a run that names only this provider uses: the vendor's recommendation for agentic coding. */
  defaultModel: string;
  /** Why that model, in one line (shown in README and `keel models`). */
  defaultReason: string;
  /** A cheaper model of the same provider for side work (summaries, titles), where the vendor has one. */
  smallModel?: string;
  /** How the provider lists the models a key can use: GET …/models in Anthropic's or OpenAI's shape. */
  modelsEndpoint?: "anthropic" | "openai";
  /** The day the rows were checked against the sources, YYYY-MM-DD. */
  checked: string;
  /** The pages the rows were checked against, vendor pages first. */
  sources: string[];
  /** What the sources did not settle, and how the rows handle it. */
  notes: string[];
}

/** A model as a provider's models endpoint lists it (GET …/models); limits where the endpoint says. */
export interface EndpointModel {
  id: string;
  name?: string;
  contextWindow?: number;
  maxOutput?: number;
  /** RFC 3339, when the endpoint gives one. */
  createdAt?: string;
}
