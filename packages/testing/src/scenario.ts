// What the mock model server (and the in-process faux fetch) answers, turn by turn.
// Wire-level only: this package depends on no @keel package.

export type WireApi = "anthropic-messages" | "openai-completions" | "openai-responses";

export interface ScriptedToolCall {
  /** Generated (toolu_… / call_…) when omitted. */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (use it for deliberately invalid JSON). */
  arguments: Record<string, unknown> | string;
}

export interface ScriptedUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** One assistant reply, streamed in the dialect of whichever endpoint was called. */
export interface ReplyTurn {
  kind?: "reply";
  thinking?: string;
  /** Anthropic signature / Responses encrypted_content for the thinking block. */
  thinkingSignature?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults: computed from the request and reply sizes (about 4 characters a token). */
  usage?: ScriptedUsage;
  /** Default: "toolUse" when there are tool calls, else "stop". */
  stopReason?: "stop" | "length" | "toolUse";
  /** Characters per delta for text, thinking and tool arguments. Default 16. */
  chunkSize?: number;
  /** Wait before each SSE event, in ms. Default 0. */
  delayMs?: number;
  /** Wait before the response headers, in ms. Default 0. */
  headerDelayMs?: number;
  /** Close the socket after this many SSE events (a mid-stream disconnect). */
  disconnectAfterEvents?: number;
  /** Send this many well-formed events, then a line of garbage that is not valid SSE JSON. */
  malformedAfterEvents?: number;
}

/** An HTTP error answer instead of a stream. */
export interface ErrorTurn {
  kind: "error";
  status: number;
  headers?: Record<string, string>;
  /** Default: the provider's error JSON shape with `message`. */
  body?: unknown;
  message?: string;
}

export type ScenarioTurn = ReplyTurn | ErrorTurn;

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

export interface Scenario {
  turns: ScenarioStep[];
  /** Answer after the turns run out. Default: a 500 error saying the scenario is exhausted. */
  fallback?: ScenarioStep;
}
