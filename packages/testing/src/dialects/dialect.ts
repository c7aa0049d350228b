// The contract each wire protocol fulfils: how a planned reply, an error and the broken cases
// are spelled in that vendor's bytes. The engine picks the dialect by request path.
import type { PlannedReply } from "../reply.js";
import type { ContextOverflowTurn, WireApi } from "../scenario.js";
import type { ThinkingLedger } from "./claude-rules.js";

export interface ErrorSpec {
  status: number;
  message: string;
  /** Overrides the vendor's error type for the status. */
  type: string | undefined;
  /** Overrides OpenAI's error code for the status. */
  code: string | undefined;
}

export interface Dialect {
  api: WireApi;
  /** Request path, without query. */
  path: string;
  /** Response header carrying a request id (deterministic, from the request index). */
  requestIdHeader: string;
  /** Complete SSE frames of a streamed reply, in order. */
  stream(reply: PlannedReply): string[];
  /** The non-streamed reply body. */
  json(reply: PlannedReply): unknown;
  errorBody(error: ErrorSpec): unknown;
  /**
   * What the vendor would reject the request for (a 400 invalid_request_error message), before
   * any turn is consumed; undefined when it is accepted.
   */
  check?(body: Record<string, unknown>, ledger: ThinkingLedger): string | undefined;
  /** The vendor's "prompt is too long" HTTP error. */
  overflow(turn: ContextOverflowTurn): { status: number; body: unknown };
  /** The in-stream error frame, sent after `sent` events of `reply`. */
  streamError(reply: PlannedReply, message: string, sent: number): string;
  /** A frame that looks like an event but whose JSON cannot parse. */
  malformed(): string;
  /** Whether a frame of `stream` carries a piece of the reply's text (endless replies repeat those). */
  isTextDelta(frame: string): boolean;
}

/** A fixed clock (2026-01-01T00:00:00Z) so recorded streams are byte-identical across runs. */
export const FIXED_UNIX_SECONDS = 1767225600;

export function pad(index: number): string {
  return String(index).padStart(4, "0");
}
