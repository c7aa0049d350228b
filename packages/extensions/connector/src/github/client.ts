// The GitHub client (Octokit, pointed at the configured API base URL) and the one place where
// what Octokit throws becomes a tagged ConnectorError: status, rate limits, validation details.
import type { Octokit } from "@octokit/rest";
import { loadSdk } from "../lazy.js";
import {
  type ConnectorError,
  connectorError,
  errorTypeForStatus,
  isAbort,
  isNetworkFailure,
} from "../sdk/errors.js";

/** Octokit, named here so the declarations of every action refer to one type. */
export interface GitHubClient extends Octokit {}

export const GITHUB_API = "https://api.github.com";

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Octokit is loaded on first use: a session that never calls GitHub never loads it. */
export function githubClient(token: string, baseUrl: string): GitHubClient {
  const { Octokit } = loadSdk<typeof import("@octokit/rest")>("@octokit/rest");
  return new Octokit({
    auth: token,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    userAgent: "keel-connector",
    // Octokit logs deprecations and request failures to the console; the tool result says it all.
    log: silent,
  });
}

interface HttpErrorShape {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

function isHttpError(error: unknown): error is HttpErrorShape {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as HttpErrorShape).status === "number" &&
    typeof (error as HttpErrorShape).message === "string"
  );
}

/** GitHub's own words: `message`, plus each validation error of a 422. */
function serviceMessage(error: HttpErrorShape): string {
  const data = error.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const base = typeof data?.message === "string" ? data.message : error.message.split(" - ")[0]!;
  if (!Array.isArray(data?.errors) || data.errors.length === 0) return base;
  const details = data.errors.map((e) => {
    if (typeof e === "string") return e;
    const { resource, field, code, message } = e as Record<string, unknown>;
    if (typeof message === "string") return message;
    return [resource, field, code].filter((p) => typeof p === "string").join(" ");
  });
  return `${base}: ${details.join("; ")}`;
}

function header(error: HttpErrorShape, name: string): string | undefined {
  const value = error.response?.headers?.[name];
  return value === undefined ? undefined : String(value);
}

/** Seconds until GitHub accepts requests again: `retry-after`, else `x-ratelimit-reset` (epoch s). */
function retryAfter(error: HttpErrorShape, now: number): number | undefined {
  const after = Number(header(error, "retry-after"));
  if (Number.isFinite(after) && after >= 0) return after;
  const reset = Number(header(error, "x-ratelimit-reset"));
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset - Math.floor(now / 1000));
  return undefined;
}

export function classifyGitHubError(error: unknown): ConnectorError {
  if (isAbort(error)) return connectorError("aborted", "The request was cancelled.");
  // Octokit reports a failed fetch as a status-500 error with no response: that is the network.
  if (
    isHttpError(error) &&
    error.response === undefined &&
    isNetworkFailure((error as { cause?: unknown }).cause ?? error)
  )
    return connectorError("network", "The GitHub API could not be reached.");
  if (isHttpError(error) && error.status >= 400) {
    const message = serviceMessage(error);
    // Primary limits answer 403 or 429 with x-ratelimit-remaining: 0; secondary ones send retry-after.
    const limited =
      error.status === 429 ||
      (error.status === 403 &&
        (header(error, "x-ratelimit-remaining") === "0" || header(error, "retry-after") !== undefined));
    if (limited) {
      const seconds = retryAfter(error, Date.now());
      return connectorError("rate_limited", message, {
        status: error.status,
        ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }),
      });
    }
    return connectorError(errorTypeForStatus(error.status), message, { status: error.status });
  }
  if (isNetworkFailure(error)) return connectorError("network", "The GitHub API could not be reached.");
  return connectorError("failed", error instanceof Error ? error.message : String(error));
}
