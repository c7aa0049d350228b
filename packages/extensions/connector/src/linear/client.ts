// The Linear client (the official SDK's GraphQL client, pointed at the configured API URL) and
// the one place where what it throws becomes a tagged ConnectorError. Actions send their own
// small documents through `request`: one round trip each, only the fields they show, instead of
// the SDK's lazy models that fetch every relation with a request of its own.
import type { LinearClient } from "@linear/sdk";
import { loadSdk } from "../lazy.js";
import { type ConnectorError, connectorError, isAbort, isNetworkFailure } from "../sdk/errors.js";

export const LINEAR_API = "https://api.linear.app/graphql";

export interface LinearConnection {
  sdk: LinearClient;
  /** One GraphQL document with its variables; resolves to `data`. */
  request<T>(document: string, variables?: Record<string, unknown>): Promise<T>;
}

/** The SDK is loaded on first use: a session that never calls Linear never loads its 3 MB. */
export function linearClient(token: string, apiUrl: string): LinearConnection {
  const { LinearClient } = loadSdk<typeof import("@linear/sdk")>("@linear/sdk");
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

// The SDK's LinearErrorType values: it has already classified the GraphQL envelope and status.
const BY_TYPE: Record<string, ConnectorError["type"]> = {
  AuthenticationError: "unauthorized",
  Forbidden: "forbidden",
  FeatureNotAccessible: "forbidden",
  InvalidInput: "invalid",
  UserError: "invalid",
  GraphqlError: "invalid",
  Ratelimited: "rate_limited",
  UsageLimitExceeded: "rate_limited",
  LockTimeout: "conflict",
  InternalError: "unavailable",
  NetworkError: "unavailable",
};

/** The SDK's LinearError, recognised by shape so this module need not load the SDK. */
interface LinearErrorShape {
  type?: string;
  message: string;
  status?: number;
  errors?: { message?: string }[];
  retryAfter?: number;
}

function isLinearError(error: unknown): error is Error & LinearErrorShape {
  return error instanceof Error && "raw" in error && typeof (error as LinearErrorShape).type === "string";
}

export function classifyLinearError(error: unknown): ConnectorError {
  if (isAbort(error)) return connectorError("aborted", "The request was cancelled.");
  if (error instanceof LinearNotFound) return connectorError("not_found", `${error.what} was not found.`);
  if (isLinearError(error)) {
    const first = error.errors?.[0]?.message;
    const message = first ?? error.message.split("\n")[0] ?? "Linear refused the request";
    const status = typeof error.status === "number" ? { status: error.status } : {};
    const type = (error.type === undefined ? undefined : BY_TYPE[error.type]) ?? "failed";
    if (error.retryAfter !== undefined)
      return connectorError(type, message, { ...status, retryAfterSeconds: error.retryAfter });
    return connectorError(type, message, status);
  }
  if (isNetworkFailure(error)) return connectorError("network", "The Linear API could not be reached.");
  return connectorError("failed", error instanceof Error ? error.message : String(error));
}
