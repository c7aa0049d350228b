// What the Chat Completions and Responses adapters share: the SDK client, per-request chunk
// framing, and the one place OpenAI-side failures become typed AiError values.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { AdapterOptions } from "../driver.js";
import { httpReason, networkCause, networkError } from "../failure.js";
import { nodeFetch } from "../transport/node-fetch.js";
import type { AiError, ImageContent, Model, TextContent } from "../types.js";
import { baseUrlOf } from "./base-url.js";
import { retryAfter } from "./retry-after.js";
import { sdkLogging } from "./sdk-log.js";

/** A client per request: retries belong to the driver, the key and fetch to the call. */
export function createClient(model: Model, options: AdapterOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: baseUrlOf(model),
    maxRetries: 0,
    // node:http instead of the global fetch unless the caller brings one (src/transport/node-fetch.ts).
    fetch: options.fetch ?? nodeFetch,
    defaultHeaders: { ...model.headers, ...options.headers },
    // What the SDK logs (a malformed chunk, its own warnings) goes to the caller's log, never to the console.
    ...sdkLogging("openai", process.env.OPENAI_LOG, options.onLog),
  });
}

/**
 * A chunk paired with the state of the request it belongs to. Adapters are shared singletons,
 * so whatever a translation must remember across chunks travels with the chunks; `end` marks a
 * stream that ended normally (a stream cut by abort gets no end marker).
 */
export type Framed<Chunk, State> =
  | { kind: "chunk"; chunk: Chunk; state: State }
  | { kind: "end"; state: State };

export async function* frame<Chunk, State>(
  source: AsyncIterable<Chunk>,
  state: State,
  signal: AbortSignal,
): AsyncGenerator<Framed<Chunk, State>> {
  for await (const chunk of source) yield { kind: "chunk", chunk, state };
  // The SDK ends iteration quietly when aborted; that is not a normal end.
  if (!signal.aborted) yield { kind: "end", state };
}

/** Whether the model wants this request's prompt cached under the session id. */
type CacheOptions = Pick<AdapterOptions, "sessionId" | "cacheRetention">;

export function promptCacheKey(model: Model, options: CacheOptions): string | undefined {
  if (!options.sessionId || options.cacheRetention === "none") return undefined;
  if (model.provider === "openai" || model.compat?.supportsPromptCacheKey) return options.sessionId;
  return undefined;
}

export function promptCacheRetention(model: Model, options: CacheOptions): "24h" | undefined {
  return options.cacheRetention === "long" && model.provider === "openai" ? "24h" : undefined;
}

export function textOf(content: readonly (TextContent | ImageContent)[]): string {
  return content
    .filter((c): c is TextContent => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

export function imagesOf(content: readonly (TextContent | ImageContent)[]): ImageContent[] {
  return content.filter((c): c is ImageContent => c.type === "image");
}

export function dataUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

export const IMAGE_OMITTED = "(image omitted: this model does not accept images)";

/** What a tool result's text field says: its text, or a word on why there is none. */
export function toolOutputText(content: readonly (TextContent | ImageContent)[]): string {
  const text = textOf(content);
  return text !== "" ? text : imagesOf(content).length > 0 ? "(see the image below)" : "(no output)";
}

/**
 * Tool messages must directly follow their assistant message, so the images a run of tool
 * results returned wait here and go after the run as one user message, opened by `note`
 * (`flush` before any other message and at the end).
 */
export function heldToolImages<Part>(send: (note: string, images: Part[]) => void) {
  let pending: Part[] = [];
  return {
    add(part: Part): void {
      pending.push(part);
    },
    flush(): void {
      if (pending.length === 0) return;
      send("Images returned by the tools above:", pending);
      pending = [];
    },
  };
}

/** OpenAI's code, then the wording compatible servers (vLLM, llama.cpp, OpenRouter, …) use. */
const OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error"]);
const OVERFLOW_TEXT =
  /maximum context length|context[ _-]length[ _-]exceeded|exceeds? (the )?(available |model'?s? )?context (size|window|length)|prompt is too long|input is too long|reduce the length of the messages|too many tokens/i;

function isOverflow(code: unknown, message: string): boolean {
  return (typeof code === "string" && OVERFLOW_CODES.has(code)) || OVERFLOW_TEXT.test(message);
}

/** An error the server reported inside a stream (Responses `error`/`response.failed`, chat `{error}`). */
export function inBandError(code: unknown, message: string): AiError {
  if (isOverflow(code, message)) return { type: "context_overflow", message };
  const prefix = typeof code === "string" && code !== "" ? `${code}: ` : "";
  return { type: "protocol", message: `The provider reported an error mid-stream: ${prefix}${message}` };
}

export function classifyOpenAIError(e: unknown): AiError {
  if (e instanceof APIUserAbortError) return { type: "aborted", message: "The request was aborted." };
  if (e instanceof APIConnectionError) {
    const timedOut = e instanceof APIConnectionTimeoutError ? { reason: "timeout" as const } : undefined;
    return networkError(networkCause(e) ?? timedOut, e.message);
  }
  if (e instanceof APIError) {
    const body = (e.error ?? {}) as { message?: unknown };
    const message = typeof body.message === "string" ? body.message : e.message;
    if (e.status === undefined) return inBandError(e.code, message);
    if ((e.status === 400 || e.status === 413 || e.status === 422) && isOverflow(e.code, message)) {
      return { type: "context_overflow", message };
    }
    const retryAfterMs = retryAfter(e.headers);
    return {
      type: "http",
      status: e.status,
      reason: httpReason(e.status),
      message,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (e instanceof Error && e.name === "AbortError")
    return { type: "aborted", message: "The request was aborted." };
  if (e instanceof SyntaxError) {
    return { type: "protocol", message: `The model server sent malformed stream data: ${e.message}` };
  }
  // fetch reports a body cut mid-read as TypeError("terminated"), the socket error as its cause.
  const cause = networkCause(e);
  if (cause !== undefined || (e instanceof TypeError && e.message === "fetch failed"))
    return networkError(cause, `the stream was cut: ${describe(e)}`);
  return { type: "protocol", message: `Unexpected failure talking to the model server: ${describe(e)}` };
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
