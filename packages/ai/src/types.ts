// The provider-neutral vocabulary (messages, content blocks, models, usage, events, errors) is
// @keel/protocol's, re-exported here under the same names; what follows is @keel/ai's own: the
// options of one model call, which hold functions and signals and so never cross a process.
export type {
  AiError,
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  Citation,
  Context,
  Cost,
  DoneReason,
  EndpointModel,
  ErrorReason,
  HttpErrorReason,
  ImageContent,
  Message,
  Model,
  ModelCost,
  ModelSource,
  NetworkErrorReason,
  OpenAICompat,
  PriceTier,
  ProviderInfo,
  ReasoningEffort,
  ServerToolContent,
  ServerToolName,
  ServerToolRequest,
  ServerToolUsage,
  StopReason,
  TextContent,
  ThinkingContent,
  ThinkingLevel,
  ThinkingSpec,
  TokenizerInfo,
  Tool,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@keel/protocol";

import type { ThinkingLevel } from "@keel/protocol";

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
  /**
   * Receives what the vendor SDKs would print (deprecation warnings, malformed chunks, their
   * own logs). Keel never lets them write to the console: without this they are dropped.
   */
  onLog?: (line: ProviderLogLine) => void;
}

/** A line a vendor SDK logged, handed to `StreamOptions.onLog`. */
export interface ProviderLogLine {
  level: "debug" | "info" | "warn" | "error";
  /** The SDK: "@anthropic-ai/sdk" or "openai". */
  source: string;
  message: string;
}
