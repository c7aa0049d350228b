// The one place that owns a model call's lifecycle: start, retries, abort, done and error.
// Adapters translate chunks; they cannot break the lifecycle because they never emit events.
import { type AssistantMessageEventStream, type ChunkSink, MessageBuilder } from "./builder.js";
import { EventStream } from "./event-stream.js";
import { explainFailure, type FailureContext } from "./failure.js";
import type {
  AiError,
  AssistantMessage,
  AssistantMessageEvent,
  Context,
  Model,
  RetryPolicy,
  StreamOptions,
} from "./types.js";

/** Options after the driver resolved the key and the abort signal (it keeps the bounds it enforces). */
export interface AdapterOptions
  extends Omit<
    StreamOptions,
    "apiKey" | "signal" | "retry" | "idleTimeoutMs" | "maxReplyChars" | "replyTimeoutMs"
  > {
  apiKey: string;
  signal: AbortSignal;
}

export interface ProviderAdapter<Chunk = unknown> {
  readonly api: Model["api"];
  /** Sends the request and returns the chunk stream. May throw SDK errors; `classify` types them. */
  open(model: Model, context: Context, options: AdapterOptions): Promise<AsyncIterable<Chunk>>;
  /** Turns one chunk into sink calls. May throw what the SDK's own iterator would; `classify` types it. */
  translate(chunk: Chunk, sink: ChunkSink): void;
  /** Turns anything `open` or the chunk iterator threw into a typed error. */
  classify(error: unknown): AiError;
  /** The URL a request for `model` goes to, so failures can name it. */
  endpoint?(model: Model): string;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** Five minutes of silence, as Codex (stream_idle_timeout_ms) and Claude Code's stream watchdog wait. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * One hour for one reply, retries included: far past any model's longest answer (64k output
 * tokens at a slow 20 a second take under an hour), so only a server that trickles forever meets it.
 */
export const DEFAULT_REPLY_TIMEOUT_MS = 3_600_000;

/** The hard cap on one reply's size in characters; the output cap usually binds first (see replyBound). */
export const DEFAULT_MAX_REPLY_CHARS = 16 * 1024 * 1024;

/**
 * Characters a token may take, generously: a well-behaved server stops at max_tokens long
 * before, so only a server that ignores the cap (or never ends) reaches the bound.
 */
const CHARS_PER_TOKEN_BOUND = 64;

/** The smaller of the hard cap and what the reply's output cap allows, in characters. */
export function replyBound(
  model: Model,
  options: Pick<StreamOptions, "maxTokens" | "maxReplyChars">,
): number {
  const cap = options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const tokens = options.maxTokens ?? model.maxOutput;
  return tokens > 0 ? Math.min(cap, tokens * CHARS_PER_TOKEN_BOUND) : cap;
}

export function createAssistantMessageEventStream(): AssistantMessageEventStream {
  return new EventStream<AssistantMessageEvent, AssistantMessage>(
    (e) => e.type === "done" || e.type === "error",
    (e) => (e.type === "done" || e.type === "error" ? e.message : (undefined as never)),
  );
}

export function isRetryable(error: AiError): boolean {
  if (error.type === "network") return true;
  if (error.type !== "http") return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/** Runs one model call through an adapter that is loaded lazily (SDKs load only when used). */
export function runProvider(
  loadAdapter: () => Promise<ProviderAdapter>,
  model: Model,
  context: Context,
  options: StreamOptions = {},
): AssistantMessageEventStream {
  const out = createAssistantMessageEventStream();
  const builder = new MessageBuilder(model, out, { maxChars: replyBound(model, options) });
  const signal = options.signal ?? new AbortController().signal;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const deadline = replyDeadline(options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
  out.push({ type: "start", partial: builder.message });

  const run = async (): Promise<void> => {
    const apiKey = resolveApiKey(model, options);
    if (typeof apiKey !== "string") {
      builder.fail(apiKey);
      return;
    }
    const {
      retry: _r,
      signal: _s,
      apiKey: _k,
      idleTimeoutMs: _i,
      maxReplyChars: _m,
      replyTimeoutMs: _t,
      ...rest
    } = options;
    const adapterOptions: AdapterOptions = { ...rest, apiKey, signal };
    let adapter: ProviderAdapter;
    try {
      adapter = await loadAdapter();
    } catch (e) {
      builder.fail({ type: "config", message: loadFailure(model.api, e) });
      return;
    }
    const failure: FailureContext = { model, keyGiven: Boolean(options.apiKey) };
    const endpoint = safeEndpoint(adapter, model);
    if (endpoint) failure.endpoint = endpoint;
    for (let attempt = 0; ; attempt++) {
      let error: AiError;
      // The adapter's SDK hooks an abort listener on the signal it is given; it gets one per
      // attempt, unhooked from the caller's (possibly session-long) signal when the attempt ends.
      const attemptAbort = new AbortController();
      const forwardAbort = () => attemptAbort.abort(signal.reason);
      signal.addEventListener("abort", forwardAbort, { once: true });
      const endAttempt = () => attemptAbort.abort(new Error("reply time bound"));
      deadline.signal.addEventListener("abort", endAttempt, { once: true });
      const watchdog = idleWatchdog(idleMs, attemptAbort);
      try {
        if (signal.aborted) throw signal.reason;
        const chunks = await adapter.open(model, context, { ...adapterOptions, signal: attemptAbort.signal });
        for await (const chunk of chunks) {
          watchdog.alive();
          adapter.translate(chunk, builder);
          if (builder.settled) break;
        }
        if (builder.settled) {
          // A reply stopped by its bound: drop the connection rather than read the rest.
          if (builder.failure) attemptAbort.abort();
          return;
        }
        if (signal.aborted) throw signal.reason;
        // The SDKs end their iterators quietly when their signal aborts, as the watchdog's does.
        error = deadline.signal.aborted
          ? deadline.error()
          : watchdog.fired
            ? watchdog.error()
            : { type: "protocol", message: "The stream ended before the provider finished the message." };
      } catch (e) {
        error = signal.aborted
          ? abortedError()
          : deadline.signal.aborted
            ? deadline.error()
            : watchdog.fired
              ? watchdog.error()
              : safeClassify(adapter, e);
      } finally {
        watchdog.stop();
        signal.removeEventListener("abort", forwardAbort);
        deadline.signal.removeEventListener("abort", endAttempt);
      }
      // Said once, here: where the request went and what to check (failure.ts).
      error = explainFailure(error, failure);
      if (!builder.hasContent && attempt < policy.maxRetries && isRetryable(error)) {
        const delayMs = retryDelay(error, attempt, policy);
        if (delayMs !== undefined) {
          out.push({ type: "retry", attempt: attempt + 1, maxRetries: policy.maxRetries, delayMs, error });
          if (await sleep(delayMs, AbortSignal.any([signal, deadline.signal]))) continue;
          builder.fail(signal.aborted ? abortedError() : deadline.error());
          return;
        }
      }
      builder.fail(error);
      return;
    }
  };

  run()
    .catch((e: unknown) => builder.fail({ type: "protocol", message: `Provider failure: ${describe(e)}` }))
    .finally(() => {
      deadline.stop();
      builder.complete();
    });
  return out;
}

interface ReplyDeadline {
  /** Aborts when the reply's time is up. */
  readonly signal: AbortSignal;
  error(): AiError;
  stop(): void;
}

/** The reply's total time bound: one timer for the whole call, retries and waits included. */
function replyDeadline(limitMs: number): ReplyDeadline {
  const controller = new AbortController();
  const timer =
    limitMs > 0 && Number.isFinite(limitMs) ? setTimeout(() => controller.abort(), limitMs) : undefined;
  return {
    signal: controller.signal,
    error: () => ({
      type: "reply_timeout",
      limitMs,
      message: `The reply took longer than ${formatMs(limitMs)} in all (its time bound, stream.replyTimeoutMs), so it was stopped; what it streamed is kept.`,
    }),
    stop: () => clearTimeout(timer),
  };
}

/** The key a call to `model` would send, or why there is none. */
export function resolveApiKey(model: Model, options: StreamOptions): string | AiError {
  if (options.apiKey) return options.apiKey;
  if (!model.apiKeyEnv) return "keel-no-key";
  const fromEnv = process.env[model.apiKeyEnv];
  if (fromEnv) return fromEnv;
  return {
    type: "config",
    message: `No API key for ${model.provider}: set ${model.apiKeyEnv} or pass apiKey.`,
  };
}

interface IdleWatchdog {
  /** Call on every chunk: the stream is alive. */
  alive(): void;
  readonly fired: boolean;
  error(): AiError;
  stop(): void;
}

/** Checks per timeout: the silence is noticed within a quarter of the timeout after it ran out. */
const IDLE_CHECKS = 4;

/**
 * Aborts the attempt once nothing arrived for `idleMs` (headers or chunks). A chunk only bumps a
 * counter (a clock read or a timer per chunk would cost a measurable share of a fast stream);
 * a timer looks at it every quarter of the timeout and fires after a full timeout without one.
 */
function idleWatchdog(idleMs: number, attempt: AbortController): IdleWatchdog {
  let chunks = 0;
  let seen = 0;
  let quiet = 0;
  let fired = false;
  const period = Math.max(1, Math.ceil(idleMs / IDLE_CHECKS));
  const timer =
    idleMs > 0 && Number.isFinite(idleMs)
      ? setInterval(() => {
          if (chunks !== seen) {
            seen = chunks;
            quiet = 0;
            return;
          }
          quiet += period;
          if (quiet < idleMs) return;
          fired = true;
          clearInterval(timer);
          attempt.abort(new Error(`idle for ${idleMs} ms`));
        }, period)
      : undefined;
  return {
    alive: () => {
      chunks++;
    },
    get fired() {
      return fired;
    },
    error: () => ({
      type: "network",
      reason: "idle",
      message: `The model server sent nothing for ${formatMs(idleMs)} (the stream's idle timeout), so the connection was dropped.`,
    }),
    stop: () => clearInterval(timer),
  };
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Backoff with jitter; a server's retry-after wins but may not exceed the policy's ceiling. */
function retryDelay(error: AiError, attempt: number, policy: RetryPolicy): number | undefined {
  if (error.type === "http" && error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxDelayMs ? error.retryAfterMs : undefined;
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(exp * (0.8 + Math.random() * 0.2));
}

/** Resolves true after the delay, false if aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function abortedError(): AiError {
  return { type: "aborted", message: "The request was aborted." };
}

function safeEndpoint(adapter: ProviderAdapter, model: Model): string | undefined {
  try {
    return adapter.endpoint?.(model);
  } catch {
    return undefined;
  }
}

function safeClassify(adapter: ProviderAdapter, e: unknown): AiError {
  try {
    return adapter.classify(e);
  } catch {
    return { type: "protocol", message: describe(e) };
  }
}

/**
 * The provider SDKs are optional peers of @keel/ai: an install brings only the one it talks to,
 * and a missing one is named with the command that adds it.
 */
function loadFailure(api: string, e: unknown): string {
  const missing = /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/']+)/.exec(describe(e))?.[1];
  return missing && (e as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND"
    ? `The ${api} provider needs the package ${missing}, which is not installed: npm i ${missing}`
    : `Could not load the ${api} provider: ${describe(e)}`;
}

export function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
