// Anthropic Messages adapter over @anthropic-ai/sdk: opens the stream, translates raw SSE
// events into sink calls, and types every failure once, here at the boundary.
import type Anthropic from "@anthropic-ai/sdk";
// The bare client plus the one resource Keel calls: `Anthropic` itself wires every resource
// (beta, organization, skills…), ~1 MB that every `keel` start would parse for nothing.
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";
import { type ServerSentEvent, Stream } from "@anthropic-ai/sdk/core/streaming";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChunkSink } from "../builder.js";
import { type AdapterOptions, describe, type ProviderAdapter } from "../driver.js";
import { httpReason, networkCause, networkError } from "../failure.js";
import { nodeFetch } from "../transport/node-fetch.js";
import type { AiError, Context, DoneReason, Model } from "../types.js";
import { AnthropicRequestError, buildParams, requestHeaders } from "./anthropic-request.js";
import { baseUrlOf, endpointOf } from "./base-url.js";
import { retryAfter } from "./retry-after.js";

type Event = Anthropic.RawMessageStreamEvent;
type ApiErrorType = ConstructorParameters<typeof APIError>[4];

/** The SDK surfaces in-band `error` events as exceptions, but a proxy may pass them through as data. */
interface InBandError {
  type: "error";
  error?: { type?: string; message?: string };
}

async function open(
  model: Model,
  context: Context,
  options: AdapterOptions,
): Promise<AsyncIterable<ServerSentEvent>> {
  const client = new BaseAnthropic({
    apiKey: options.apiKey,
    baseURL: baseUrlOf(model),
    maxRetries: 0,
    // node:http instead of the global fetch unless the caller brings one (src/transport/node-fetch.ts).
    fetch: options.fetch ?? nodeFetch,
    defaultHeaders: { ...model.headers, ...options.headers },
    // The SDK would print malformed chunks to the console; Keel reports them as error values.
    logLevel: process.env.ANTHROPIC_LOG ? undefined : "off",
  });
  const params = buildParams(model, context, options);
  options.onPayload?.(params);
  // Keel reads the SDK's SSE frames and parses each event in translate: the SDK's event
  // iterator would add one more async generator step per event on top of these frames, the
  // largest part of what Keel cost over a bare SDK loop. Its status checks and errors still
  // apply, since asResponse() resolves only for a successful response.
  const response = await new Messages(client)
    .create(params, { signal: options.signal, headers: requestHeaders(params, model, options) })
    .asResponse();
  return Stream.rawEvents(response);
}

/** Does with one frame what the SDK's event iterator does, then translates the event. */
function translate(frame: ServerSentEvent, sink: ChunkSink): void {
  if (frame.event === null || frame.event === "ping") return;
  if (frame.event === "error") {
    // Thrown as the SDK throws it, so classify types it and the driver may retry it.
    const body = safeJson(frame.data) ?? frame.data;
    const type = typeof body === "object" ? body.error?.type : undefined;
    throw new APIError(undefined, body, undefined, new Headers(), type as ApiErrorType);
  }
  if (!frame.data) return;
  // A frame that is not JSON throws a SyntaxError, which classify reports as a protocol error.
  translateEvent(JSON.parse(frame.data) as Event | InBandError, sink);
}

function safeJson(text: string): { error?: { type?: string } } | null | undefined {
  try {
    return JSON.parse(text) as { error?: { type?: string } } | null;
  } catch {
    return undefined;
  }
}

/** Sink keys for block indexes; precomputed because a long reply converts one per delta. */
const KEYS = Array.from({ length: 64 }, (_, i) => String(i));
const blockKey = (index: number): string => KEYS[index] ?? String(index);

function translateEvent(chunk: Event | InBandError, sink: ChunkSink): void {
  switch (chunk.type) {
    case "message_start": {
      const { id, usage } = chunk.message;
      sink.responseId(id);
      sink.usage({
        input: usage.input_tokens,
        output: usage.output_tokens,
        cacheRead: usage.cache_read_input_tokens ?? 0,
        cacheWrite: usage.cache_creation_input_tokens ?? 0,
      });
      return;
    }
    case "content_block_start": {
      const key = blockKey(chunk.index);
      const block = chunk.content_block;
      // Empty text/thinking starts open nothing: the first delta opens the block.
      if (block.type === "text") {
        if (block.text) sink.text(key, block.text);
      } else if (block.type === "thinking") {
        if (block.thinking) sink.thinking(key, block.thinking);
        if (block.signature) sink.thinkingSignature(key, block.signature);
      } else if (block.type === "redacted_thinking") {
        sink.thinkingSignature(key, block.data, { redacted: true });
      } else if (block.type === "tool_use") {
        sink.toolCallStart(key, { id: block.id, name: block.name });
        // Arguments normally stream as input_json_delta; some proxies put them here instead.
        if (block.input && typeof block.input === "object" && Object.keys(block.input).length > 0) {
          sink.toolCallArgs(key, JSON.stringify(block.input));
        }
      }
      return;
    }
    case "content_block_delta": {
      const key = blockKey(chunk.index);
      const delta = chunk.delta;
      if (delta.type === "text_delta") sink.text(key, delta.text);
      else if (delta.type === "thinking_delta") sink.thinking(key, delta.thinking);
      else if (delta.type === "signature_delta") sink.thinkingSignature(key, delta.signature);
      else if (delta.type === "input_json_delta") sink.toolCallArgs(key, delta.partial_json);
      return;
    }
    case "content_block_stop":
      sink.endBlock(blockKey(chunk.index));
      return;
    case "message_delta": {
      const usage = chunk.usage;
      // message_delta carries cumulative counts; input fields are only present on some deployments.
      sink.usage({
        output: usage.output_tokens,
        ...(usage.input_tokens != null && { input: usage.input_tokens }),
        ...(usage.cache_read_input_tokens != null && { cacheRead: usage.cache_read_input_tokens }),
        ...(usage.cache_creation_input_tokens != null && { cacheWrite: usage.cache_creation_input_tokens }),
        ...(usage.output_tokens_details != null && {
          reasoning: usage.output_tokens_details.thinking_tokens,
        }),
      });
      const reason = chunk.delta.stop_reason;
      if (reason === "model_context_window_exceeded") {
        sink.fail({
          type: "context_overflow",
          message: "The conversation no longer fits the model's context window.",
        });
      } else if (reason) {
        sink.finish(doneReason(reason));
      }
      return;
    }
    case "message_stop":
      return;
    case "error":
      sink.fail(
        inBandError(chunk.error?.type, chunk.error?.message ?? "Anthropic reported an error mid-stream."),
      );
      return;
  }
}

function doneReason(reason: Anthropic.StopReason): DoneReason {
  if (reason === "max_tokens") return "length";
  if (reason === "tool_use") return "toolUse";
  // end_turn, stop_sequence, pause_turn, refusal: the message is complete as it stands.
  return "stop";
}

function classify(error: unknown): AiError {
  if (error instanceof APIUserAbortError) return { type: "aborted", message: "The request was aborted." };
  // Also covers APIConnectionTimeoutError, its subclass.
  if (error instanceof APIConnectionError) {
    const timedOut = error instanceof APIConnectionTimeoutError ? { reason: "timeout" as const } : undefined;
    return networkError(networkCause(error) ?? timedOut, error.message);
  }
  if (error instanceof APIError) {
    const message = error.apiMessage ?? error.message;
    if (error.status === undefined) return inBandError(error.type ?? undefined, message);
    if (error.status === 400 && isContextOverflow(message)) return { type: "context_overflow", message };
    const retryAfterMs = retryAfter(error.headers);
    return {
      type: "http",
      status: error.status,
      reason: httpReason(error.status),
      message,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }
  if (error instanceof AnthropicRequestError) return { type: "config", message: error.message };
  if (isDroppedConnection(error)) {
    return networkError(networkCause(error) ?? { reason: "reset" }, `the stream was cut: ${describe(error)}`);
  }
  if (error instanceof SyntaxError) {
    return {
      type: "protocol",
      message: `Anthropic sent a stream event that is not valid JSON: ${error.message}`,
    };
  }
  return {
    type: "protocol",
    message: `Unexpected failure while streaming from Anthropic: ${describe(error)}`,
  };
}

/** Statuses Anthropic uses for each error type, so an in-band error retries like its HTTP twin. */
const IN_BAND_STATUS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  timeout_error: 504,
};

function inBandError(type: string | undefined, message: string): AiError {
  if (type === "invalid_request_error" && isContextOverflow(message))
    return { type: "context_overflow", message };
  const status = type ? IN_BAND_STATUS[type] : undefined;
  if (status !== undefined)
    return {
      type: "http",
      status,
      reason: httpReason(status),
      inStream: true,
      message: `${type}: ${message}`,
    };
  return { type: "protocol", message: `Anthropic reported ${type ?? "an error"} mid-stream: ${message}` };
}

/** The two 400 messages Anthropic sends when the input (plus max_tokens) exceeds the window. */
function isContextOverflow(message: string): boolean {
  return /prompt is too long|exceed(s)? context limit|context window/i.test(message);
}

/** undici reports a socket closed mid-body as `TypeError: terminated` with a socket error cause. */
function isDroppedConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code && (code.startsWith("UND_ERR") || code === "ECONNRESET" || code === "EPIPE")) return true;
  return error.name === "TypeError" && error.message === "terminated";
}

export const anthropicAdapter: ProviderAdapter<ServerSentEvent> = {
  api: "anthropic-messages",
  endpoint: (model) => endpointOf(model, "/v1/messages"),
  open,
  translate,
  classify,
};
