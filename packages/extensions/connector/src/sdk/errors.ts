// The one error shape every connector classifies into, and the wording the model reads: what
// happened at the service and what to do next. JSON-safe, so it is journaled and streamed as is.

export type ConnectorErrorType =
  /** The token was rejected (401): missing, expired or revoked. */
  | "unauthorized"
  /** The token works but may not do this (403 without a rate limit). */
  | "forbidden"
  | "not_found"
  /** The service refused the arguments (422, GraphQL input errors). */
  | "invalid"
  /** A state conflict (409, a merge that is not mergeable). */
  | "conflict"
  | "rate_limited"
  /** The service could not be reached (connection refused, DNS, timeout). */
  | "network"
  /** The service failed (5xx). */
  | "unavailable"
  | "aborted"
  | "failed";

export interface ConnectorError {
  type: ConnectorErrorType;
  /** What the service said, in its words where they help. */
  message: string;
  status?: number;
  /** For `rate_limited`: seconds until requests are accepted again, when the service says. */
  retryAfterSeconds?: number;
}

export function connectorError(
  type: ConnectorErrorType,
  message: string,
  extra: { status?: number; retryAfterSeconds?: number } = {},
): ConnectorError {
  return { type, message, ...extra };
}

/**
 * The usual HTTP mapping, for connectors over REST or GraphQL-over-HTTP: 401 unauthorized, 403
 * forbidden, 404 not found, 409 conflict, 422 / 400 invalid, 429 rate limited, 5xx unavailable.
 */
export function errorTypeForStatus(status: number): ConnectorErrorType {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 400 || status === 422) return "invalid";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "unavailable";
  return "failed";
}

/** Node's fetch and most SDKs put the system error code under `cause`. */
export function isNetworkFailure(error: unknown): boolean {
  const codes = new Set([
    "ECONNREFUSED",
    "ECONNRESET",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "EHOSTUNREACH",
  ]);
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && codes.has(code)) return true;
    if (
      (current as { name?: unknown }).name === "TypeError" &&
      String((current as Error).message) === "fetch failed"
    )
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export function isAbort(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

export interface ErrorWording {
  /** "GitHub" */
  label: string;
  /** "github" */
  connectorId: string;
  /** The environment variable the token is read from. */
  tokenEnv: string;
  /** Where the connector connects. */
  baseUrl: string;
}

/** The tool error the model reads: the service's words, then what to do about it. */
export function describeError(error: ConnectorError, wording: ErrorWording): string {
  const status = error.status === undefined ? "" : ` (HTTP ${error.status})`;
  const head = `${wording.label} ${error.type.replaceAll("_", " ")}${status}: ${error.message}`;
  const login = `keel connector login ${wording.connectorId}`;
  switch (error.type) {
    case "unauthorized":
      return `${head}\nThe ${wording.label} credentials were rejected. Ask the user to check $${wording.tokenEnv} or run \`${login}\` again; retrying will not help.`;
    case "forbidden":
      return `${head}\nThe token is valid but may not do this (missing scope or no access to the resource). Do not retry with the same arguments.`;
    case "not_found":
      return `${head}\nCheck the names and numbers in the arguments (a private resource the token cannot see also answers not found).`;
    case "invalid":
      return `${head}\nThe service refused the arguments; fix them and try again.`;
    case "conflict":
      return `${head}\nThe resource is not in a state that allows this; read it again before deciding.`;
    case "rate_limited": {
      const wait =
        error.retryAfterSeconds === undefined
          ? "Wait before retrying."
          : `Requests are accepted again in about ${Math.max(1, Math.ceil(error.retryAfterSeconds))} s.`;
      return `${head}\n${wait} Do not retry in a loop.`;
    }
    case "network":
      return `${head}\n${wording.baseUrl} could not be reached. Tell the user; the base URL is set in extensions.connector.config.connectors.${wording.connectorId}.baseUrl.`;
    case "unavailable":
      return `${head}\nThe service failed on its side; try again later.`;
    case "aborted":
      return `${head}`;
    case "failed":
      return head;
  }
}
