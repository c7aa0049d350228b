// What the mock model server (and the in-process faux fetch) answers, turn by turn.
// Wire-level, in @keel/protocol's terms where Keel's own vocabulary is meant (types only).
import type { Api, Usage } from "@keel/protocol";

/** The wire protocol an endpoint speaks: @keel/protocol's `Api`. */
export type WireApi = Api;

export interface ScriptedToolCall {
  /** Generated (toolu_… / call_…) when omitted. */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (use it for deliberately invalid JSON). */
  arguments: Record<string, unknown> | string;
}

/**
 * Token counts in Keel's terms: `input` is the uncached input, `output` includes `reasoning`.
 * Each dialect maps them onto its own fields (OpenAI's prompt_tokens = input + cacheRead + cacheWrite).
 */
export type ScriptedUsage = Pick<Usage, "input" | "output"> &
  Partial<Pick<Usage, "cacheRead" | "cacheWrite" | "reasoning">>;

/** A page a scripted web search returns. */
export interface ScriptedSearchResult {
  url: string;
  title: string;
  /** The page's text (Anthropic sends it encrypted; the mock base64-encodes it). */
  content?: string;
}

/**
 * A tool the provider runs on its side before the reply's text: Anthropic's web search and web
 * fetch (server_tool_use + its result block), OpenAI Responses' web search (a web_search_call
 * item; the Responses dialect has no web fetch and leaves one out). Chat Completions has none.
 */
export type ScriptedServerTool =
  | { name: "web_search"; query: string; results: ScriptedSearchResult[]; error?: string }
  | { name: "web_fetch"; url: string; title?: string; content: string; error?: string };

/** A source the reply's text cites (Anthropic citations, OpenAI url_citation annotations). */
export interface ScriptedCitation {
  url: string;
  title?: string;
  /** The words cited; Anthropic's web_search_result_location carries them. */
  citedText: string;
}

/** One assistant reply, streamed in the dialect of whichever endpoint was called. */
export interface ReplyTurn {
  kind?: "reply";
  thinking?: string;
  /** Anthropic signature / Responses encrypted_content for the thinking block. */
  thinkingSignature?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Server-side tools run before the text, in order (their usage is counted in the reply's). */
  serverTools?: ScriptedServerTool[];
  /** Sources the text cites (needs `text`). */
  citations?: ScriptedCitation[];
  /** Defaults: computed from the request and reply sizes (about 4 characters a token). */
  usage?: ScriptedUsage;
  /**
   * Default: "toolUse" when there are tool calls, else "stop". "pause" is Anthropic's pause_turn
   * (a long server-side turn the client sends back to go on; "stop" elsewhere); "refusal" is
   * Anthropic's refusal stop with its details, a Chat content_filter finish and a Responses
   * content_filter incompletion.
   */
  stopReason?: "stop" | "length" | "toolUse" | "pause" | "refusal";
  /** Characters per delta for text, thinking and tool arguments. Default 16. */
  chunkSize?: number;
  /** Wait before each SSE event, in ms. Default 0. */
  delayMs?: number;
  /** Wait before the response headers, in ms. Default 0. */
  headerDelayMs?: number;
  /** Close the socket after this many SSE events (a mid-stream disconnect). */
  disconnectAfterEvents?: number;
  /**
   * Send this many events, then nothing more while keeping the connection open, until the
   * client hangs up (a stalled stream; 0: the headers, then silence).
   */
  stallAfterEvents?: number;
  /**
   * Never finish: once the text's deltas are out they are sent again and again until the client
   * hangs up (a reply that never ends). Needs `text`; streamed requests only.
   */
  endless?: boolean;
  /** Send this many well-formed events, then a line of garbage that is not valid SSE JSON. */
  malformedAfterEvents?: number;
  /**
   * Send this many events, then the dialect's in-stream error (Anthropic `event: error`,
   * OpenAI `{"error":…}` chunk, Responses `response.failed`) and end the stream.
   */
  streamErrorAfterEvents?: number;
  /** Message of the in-stream error. Default: "Overloaded". */
  streamErrorMessage?: string;
}

/** An HTTP error answer instead of a stream. */
export interface ErrorTurn {
  kind: "error";
  status: number;
  headers?: Record<string, string>;
  /** Default: the provider's error JSON shape with `message`. */
  body?: unknown;
  message?: string;
  /** The error's `type` field. Default: the vendor's type for the status (429 → rate_limit_error, …). */
  errorType?: string;
  /** OpenAI's `error.code`. Default: the vendor's code for the status, else null. */
  code?: string;
}

/**
 * The vendor's real "prompt too long" answer: Anthropic 400 invalid_request_error
 * "prompt is too long: N tokens > M maximum"; OpenAI 400 code context_length_exceeded.
 */
export interface ContextOverflowTurn {
  kind: "context_overflow";
  /** Tokens the prompt is said to have. Default: maxTokens + 1000. */
  promptTokens?: number;
  /** The context window the error names. Default 200000 (Anthropic) or 128000 (OpenAI). */
  maxTokens?: number;
}

export type ScenarioTurn = ReplyTurn | ErrorTurn | ContextOverflowTurn;

export interface RecordedRequest {
  api: WireApi;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw request body as received. */
  raw: string;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** Index of this request among all requests the server received. */
  index: number;
}

/** A turn, or a function choosing one from the request (for long or reactive scripts). */
export type ScenarioStep = ScenarioTurn | ((request: RecordedRequest) => ScenarioTurn);

/** A model the mock's models route (GET /v1/models) lists for the key. */
export interface ScriptedModel {
  id: string;
  /** Anthropic's display_name. */
  displayName?: string;
  /** Anthropic's max_input_tokens. */
  maxInputTokens?: number;
  /** Anthropic's max_tokens. */
  maxOutputTokens?: number;
}

/** A call to the models route, as received. */
export interface RecordedListing {
  shape: "anthropic" | "openai";
  path: string;
  headers: Record<string, string>;
}

/** Turns are consumed one per model request, in order, whatever the endpoint. */
export interface Scenario {
  turns: ScenarioStep[];
  /**
   * What GET /v1/models lists, in Anthropic's shape for requests carrying anthropic-version and
   * OpenAI's otherwise. Default: an empty list. Listing consumes no turn.
   */
  models?: ScriptedModel[];
  /** Answer after the turns run out (every request from then on). Default: a 500 error saying the scenario is exhausted. */
  fallback?: ScenarioStep;
}
