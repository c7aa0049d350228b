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
import type { AiError, Context, Model } from "../types.js";
import { AnthropicRequestError, buildParams, requestHeaders } from "./anthropic-request.js";
import { type InBandError, translateAnthropicEvent } from "./anthropic-stream.js";
import { baseUrlOf, endpointOf } from "./base-url.js";
import { retryAfter } from "./retry-after.js";
import { consoleToLog, sdkLogging } from "./sdk-log.js";

type Event = Anthropic.RawMessageStreamEvent;
type ApiErrorType = ConstructorParameters<typeof APIError>[4];

/** A client per request (streaming and the models list): retries belong to the driver, the key and fetch to the call. */
export function anthropicClient(
  model: Model,
  options: Pick<AdapterOptions, "apiKey" | "fetch" | "headers" | "onLog">,
): BaseAnthropic {
  return new BaseAnthropic({
    apiKey: options.apiKey,
    baseURL: baseUrlOf(model),
    maxRetries: 0,
    // node:http instead of the global fetch unless the caller brings one (src/transport/node-fetch.ts).
    fetch: options.fetch ?? nodeFetch,
    defaultHeaders: { ...model.headers, ...options.headers },
    // What the SDK logs goes to the caller's log, never to the console.
    ...sdkLogging("@anthropic-ai/sdk", process.env.ANTHROPIC_LOG, options.onLog),
  });
}

async function open(
  model: Model,
  context: Context,
  options: AdapterOptions,
): Promise<AsyncIterable<ServerSentEvent>> {
  const client = anthropicClient(model, options);
  const params = buildParams(model, context, options);
  options.onPayload?.(params);
  // Keel reads the SDK's SSE frames and parses each event in translate: the SDK's event
  // iterator would add one more async generator step per event on top of these frames, the
  // largest part of what Keel cost over a bare SDK loop. Its status checks and errors still
  // apply, since asResponse() resolves only for a successful response. create() itself warns
  // about deprecated models on the console; those lines go to the log too.
  const response = await consoleToLog("@anthropic-ai/sdk", options.onLog, () =>
    new Messages(client).create(params, {
      signal: options.signal,
      headers: requestHeaders(params, model, options),
    }),
  ).asResponse();
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
  translateAnthropicEvent(JSON.parse(frame.data) as Event | InBandError, sink, inBandError);
}

function safeJson(text: string): { error?: { type?: string } } | null | undefined {
  try {
    return JSON.parse(text) as { error?: { type?: string } } | null;
  } catch {
    return undefined;
  }
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
