// Why a model call failed, as JSON-safe tagged values (providers never throw: a failed call ends
// in an `error` event carrying one of these).
import { type Static, Type } from "@sinclair/typebox";
import { literals, strict } from "./shape.js";

const Str = Type.String();
const Num = Type.Number();
const Opt = Type.Optional;

/** Why an HTTP answer was a failure, from its status: each asks the user to check something else. */
export const HttpErrorReasonSchema = literals([
  "bad_request",
  "auth",
  "forbidden",
  "not_found",
  "timeout",
  "conflict",
  "too_large",
  "rate_limit",
  "overloaded",
  "server",
  "other",
]);
export type HttpErrorReason = Static<typeof HttpErrorReasonSchema>;

/** Why a connection failed, from the socket, TLS or proxy error under it ("idle": the stream sent nothing for the idle timeout). */
export const NetworkErrorReasonSchema = literals([
  "refused",
  "unreachable",
  "dns",
  "timeout",
  "reset",
  "idle",
  "tls",
  "proxy",
  "other",
]);
export type NetworkErrorReason = Static<typeof NetworkErrorReasonSchema>;

export const HttpErrorSchema = strict(
  {
    type: Type.Literal("http"),
    status: Type.Integer(),
    reason: HttpErrorReasonSchema,
    message: Str,
    endpoint: Opt(Str),
    hint: Opt(Str),
    retryAfterMs: Opt(Num),
    /** The server accepted the request, then sent this error inside the stream (its status is the error type's). */
    inStream: Opt(Type.Boolean()),
  },
  "The provider answered with an HTTP error (inStream: inside an accepted stream).",
);

export const NetworkErrorSchema = strict(
  {
    type: Type.Literal("network"),
    reason: NetworkErrorReasonSchema,
    message: Str,
    endpoint: Opt(Str),
    hint: Opt(Str),
    /** The socket or TLS error code (`ECONNREFUSED`). */
    code: Opt(Str),
    /** The proxy that failed (without credentials) and the variable that named it. */
    proxy: Opt(Str),
    proxyVariable: Opt(Str),
  },
  "The provider could not be reached, or the connection failed.",
);

/**
 * Expected failures, as JSON-safe tagged values. For `http` and `network`, `message` says what
 * happened, where (`endpoint`: the URL tried) and what to check (`hint`, also in the message).
 */
export const AiErrorSchema = Type.Union([
  HttpErrorSchema,
  NetworkErrorSchema,
  strict({ type: Type.Literal("aborted"), message: Str }, "The call was aborted."),
  strict(
    { type: Type.Literal("context_overflow"), message: Str },
    "The prompt did not fit the context window.",
  ),
  strict({ type: Type.Literal("protocol"), message: Str }, "The stream was malformed."),
  /**
   * The model declined to answer (Anthropic's `refusal` stop, a content filter). Don't send the
   * same turn again unchanged; `recommendedModel` is the provider's suggestion, when it has one.
   */
  strict(
    {
      type: Type.Literal("refusal"),
      message: Str,
      category: Opt(Str),
      explanation: Opt(Str),
      recommendedModel: Opt(Str),
    },
    "The model declined to answer (the provider's refusal stop or content filter).",
  ),
  strict(
    { type: Type.Literal("reply_too_large"), message: Str, limitChars: Num },
    "The reply passed its size bound.",
  ),
  strict(
    { type: Type.Literal("reply_timeout"), message: Str, limitMs: Num },
    "The reply passed its time bound (stream.replyTimeoutMs), retries included.",
  ),
  strict({ type: Type.Literal("config"), message: Str }, "A configuration problem."),
]);
export type AiError = Static<typeof AiErrorSchema>;
