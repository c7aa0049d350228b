// The scenario engine: routes a request to its dialect, records it, takes the next scenario
// turn and plans the exact response bytes. Transport-free: server.ts and faux-fetch.ts run it.
import { anthropic } from "./dialects/anthropic.js";
import type { ThinkingLedger } from "./dialects/claude-rules.js";
import type { Dialect } from "./dialects/dialect.js";
import { openaiChat } from "./dialects/openai-chat.js";
import { openaiResponses } from "./dialects/openai-responses.js";
import { listModels } from "./models-route.js";
import { jsonPlan, type ResponsePlan } from "./plan.js";
import { planReply } from "./reply.js";
import type { RecordedListing, RecordedRequest, ReplyTurn, Scenario, ScenarioTurn } from "./scenario.js";

export interface IncomingRequest {
  method: string;
  /** Path with optional query string. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  raw: string;
}

const DIALECTS: readonly Dialect[] = [anthropic, openaiChat, openaiResponses];

const ROUTES = [...DIALECTS.map((d) => `POST ${d.path}`), "GET /v1/models"].join(", ");

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };

export class ScenarioEngine {
  /** Every routed request, in arrival order; shared by reference with the transports. */
  readonly requests: RecordedRequest[] = [];
  /** Every call to the models route, in arrival order (they consume no turn). */
  readonly listings: RecordedListing[] = [];
  /** Thinking signatures handed out, with their model and conversation, across scenarios. */
  readonly ledger: ThinkingLedger = new Map();
  #scenario: Scenario;
  #cursor = 0;

  constructor(scenario: Scenario = { turns: [] }) {
    this.#scenario = scenario;
  }

  /** Replaces the script and rewinds to its first turn; the request log is kept. */
  setScenario(scenario: Scenario): void {
    this.#scenario = scenario;
    this.#cursor = 0;
  }

  handle(incoming: IncomingRequest): ResponsePlan {
    const path = incoming.url.split("?")[0] ?? "";
    if (path === "/v1/models" && incoming.method === "GET") {
      const shape = incoming.headers["anthropic-version"] !== undefined ? "anthropic" : "openai";
      this.listings.push({ shape, path: incoming.url, headers: incoming.headers });
      return jsonPlan(200, listModels(shape, this.#scenario.models ?? []));
    }
    const dialect = DIALECTS.find((d) => d.path === path);
    if (!dialect) {
      return jsonPlan(404, {
        error: {
          type: "not_found_error",
          message: `keel mock server: no route for ${incoming.method} ${path}; it serves ${ROUTES}`,
        },
      });
    }
    const fail = (status: number, message: string) =>
      jsonPlan(status, dialect.errorBody({ status, message, type: undefined, code: undefined }));
    if (incoming.method !== "POST") return fail(405, `keel mock server: ${path} only accepts POST`);
    let body: unknown;
    try {
      body = JSON.parse(incoming.raw);
    } catch (error) {
      return fail(400, `keel mock server: request body is not JSON (${String(error)})`);
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return fail(400, "keel mock server: request body must be a JSON object");
    }
    const request: RecordedRequest = {
      api: dialect.api,
      method: incoming.method,
      path,
      headers: incoming.headers,
      raw: incoming.raw,
      body: body as Record<string, unknown>,
      index: this.requests.length,
    };
    this.requests.push(request);
    const problem = dialect.check?.(request.body, this.ledger);
    if (problem !== undefined) return fail(400, problem);
    let turn: ScenarioTurn;
    try {
      turn = this.#nextTurn(request);
    } catch (error) {
      return fail(
        500,
        `keel mock server: the scenario step for request #${request.index} threw: ${String(error)}`,
      );
    }
    try {
      return this.#answer(dialect, turn, request);
    } catch (error) {
      // A turn the engine cannot render (e.g. a tool call without arguments from hand-written
      // JSON) is the script's fault: say so instead of cutting the connection.
      return fail(
        500,
        `keel mock server: the scenario turn for request #${request.index} cannot be rendered: ${String(error)}`,
      );
    }
  }

  #nextTurn(request: RecordedRequest): ScenarioTurn {
    const { turns, fallback } = this.#scenario;
    const step = this.#cursor < turns.length ? turns[this.#cursor++] : fallback;
    if (step === undefined) {
      return {
        kind: "error",
        status: 500,
        message: `keel mock server: scenario exhausted: ${turns.length} turn(s) scripted, this is request #${request.index}`,
      };
    }
    return typeof step === "function" ? step(request) : step;
  }

  #answer(dialect: Dialect, turn: ScenarioTurn, request: RecordedRequest): ResponsePlan {
    const requestId = { [dialect.requestIdHeader]: `req_keel${String(request.index).padStart(4, "0")}` };
    if (turn.kind === "error") {
      const body =
        turn.body ??
        dialect.errorBody({
          status: turn.status,
          message: turn.message ?? `keel mock server: scripted ${turn.status} error`,
          type: turn.errorType,
          code: turn.code,
        });
      return jsonPlan(turn.status, body, { ...requestId, ...turn.headers });
    }
    if (turn.kind === "context_overflow") {
      const { status, body } = dialect.overflow(turn);
      return jsonPlan(status, body, requestId);
    }
    const reply = { ...planReply(turn, request), ledger: this.ledger };
    if (request.body.stream !== true) {
      const plan = jsonPlan(200, dialect.json(reply), requestId);
      plan.headerDelayMs = turn.headerDelayMs ?? 0;
      if (turn.disconnectAfterEvents !== undefined) return { ...plan, chunks: [], ending: "disconnect" };
      if (turn.stallAfterEvents !== undefined) return { ...plan, chunks: [], ending: "stall" };
      return plan;
    }
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...requestId },
      headerDelayMs: turn.headerDelayMs ?? 0,
      delayMs: turn.delayMs ?? 0,
      ...streamChunks(dialect, turn, dialect.stream(reply), reply),
    };
  }
}

/** Applies the scripted stream faults: endless text, garbage line, in-stream error, cut or stalled connection. */
function streamChunks(
  dialect: Dialect,
  turn: ReplyTurn,
  frames: string[],
  reply: ReturnType<typeof planReply>,
): Pick<ResponsePlan, "chunks" | "ending" | "loop"> {
  if (turn.endless) return endlessChunks(dialect, frames);
  let chunks = frames;
  if (turn.malformedAfterEvents !== undefined) {
    chunks = [...chunks.slice(0, turn.malformedAfterEvents), dialect.malformed()];
  } else if (turn.streamErrorAfterEvents !== undefined) {
    const sent = turn.streamErrorAfterEvents;
    chunks = [
      ...chunks.slice(0, sent),
      dialect.streamError(reply, turn.streamErrorMessage ?? "Overloaded", sent),
    ];
  }
  if (turn.disconnectAfterEvents !== undefined) {
    return { chunks: chunks.slice(0, turn.disconnectAfterEvents), ending: "disconnect" };
  }
  if (turn.stallAfterEvents !== undefined) {
    return { chunks: chunks.slice(0, turn.stallAfterEvents), ending: "stall" };
  }
  return { chunks, ending: "end" };
}

/** Everything up to the last text delta, then the text deltas over and over. */
function endlessChunks(dialect: Dialect, frames: string[]): Pick<ResponsePlan, "chunks" | "ending" | "loop"> {
  const first = frames.findIndex((f) => dialect.isTextDelta(f));
  let last = first;
  while (last + 1 < frames.length && dialect.isTextDelta(frames[last + 1]!)) last++;
  if (first === -1) throw new Error("an endless turn needs text to repeat");
  return { chunks: frames.slice(0, last + 1), ending: "stall", loop: frames.slice(first, last + 1) };
}
