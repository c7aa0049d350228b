// The Linear client (the official SDK's GraphQL client, pointed at the configured API URL) and
// the one place where what it throws becomes a tagged ConnectorError. Actions send their own
// small documents through `request`: one round trip each, only the fields they show, instead of
// the SDK's lazy models that fetch every relation with a request of its own.
import { LinearClient, LinearError, LinearErrorType, RatelimitedLinearError } from "@linear/sdk";
import { type ConnectorError, connectorError, isAbort, isNetworkFailure } from "../sdk/errors.js";

export const LINEAR_API = "https://api.linear.app/graphql";

export interface LinearConnection {
  sdk: LinearClient;
  /** One GraphQL document with its variables; resolves to `data`. */
  request<T>(document: string, variables?: Record<string, unknown>): Promise<T>;
}

export function linearClient(token: string, apiUrl: string): LinearConnection {
  const sdk = new LinearClient({ apiKey: token, apiUrl });
  return {
    sdk,
    request: async <T>(document: string, variables?: Record<string, unknown>) =>
      (await sdk.client.rawRequest<T, Record<string, unknown>>(document, variables)).data as T,
  };
}

/** A node the document asked for by id came back null: the service's way of saying not found. */
export class LinearNotFound {
  constructor(readonly what: string) {}
}

const BY_TYPE: Partial<Record<LinearErrorType, ConnectorError["type"]>> = {
  [LinearErrorType.AuthenticationError]: "unauthorized",
  [LinearErrorType.Forbidden]: "forbidden",
  [LinearErrorType.FeatureNotAccessible]: "forbidden",
  [LinearErrorType.InvalidInput]: "invalid",
  [LinearErrorType.UserError]: "invalid",
  [LinearErrorType.GraphqlError]: "invalid",
  [LinearErrorType.Ratelimited]: "rate_limited",
  [LinearErrorType.UsageLimitExceeded]: "rate_limited",
  [LinearErrorType.LockTimeout]: "conflict",
  [LinearErrorType.InternalError]: "unavailable",
  [LinearErrorType.NetworkError]: "unavailable",
};

export function classifyLinearError(error: unknown): ConnectorError {
  if (isAbort(error)) return connectorError("aborted", "The request was cancelled.");
  if (error instanceof LinearNotFound) return connectorError("not_found", `${error.what} was not found.`);
  if (error instanceof LinearError) {
    const first = error.errors?.[0]?.message;
    const message = first ?? error.message.split("\n")[0] ?? "Linear refused the request";
    const status = typeof error.status === "number" ? { status: error.status } : {};
    const type = (error.type && BY_TYPE[error.type]) ?? "failed";
    if (error instanceof RatelimitedLinearError && error.retryAfter !== undefined)
      return connectorError(type, message, { ...status, retryAfterSeconds: error.retryAfter });
    return connectorError(type, message, status);
  }
  if (isNetworkFailure(error)) return connectorError("network", "The Linear API could not be reached.");
  return connectorError("failed", error instanceof Error ? error.message : String(error));
}
