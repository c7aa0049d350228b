// Failures of an MCP connection as tagged, JSON-safe values, classified once here from what the
// SDK and Node throw, so nothing above this module looks at error classes or message text.
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export type McpFailure =
  /** The stdio command could not be started (not found, not executable). */
  | { type: "spawn_failed"; message: string }
  /** The server could not be reached or refused the handshake. */
  | { type: "connect_failed"; message: string; status?: number }
  /** No response (nor progress) within the timeout. */
  | { type: "timeout"; message: string }
  /** The connection ended while the request was out: its outcome is unknown. */
  | { type: "disconnected"; message: string }
  /** The HTTP server no longer knows the session (404); a new session is needed. */
  | { type: "session_expired"; message: string }
  /** The server wants OAuth authorization (or more scope) the user has not given yet. */
  | { type: "auth_required"; message: string; scope?: string }
  /** The server answered with a JSON-RPC error. */
  | { type: "protocol_error"; message: string; code: number; data?: unknown }
  /** The caller aborted. */
  | { type: "cancelled"; message: string }
  /** The server is disabled, closed or has never connected. */
  | { type: "unavailable"; message: string };

export type FailureType = McpFailure["type"];

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The SDK prefixes "MCP error <code>: " to a JSON-RPC error's message, and a server built on it
 * sends messages that already carry the prefix: say it once.
 */
export function onePrefix(message: string): string {
  return message.replace(/^(MCP error -?\d+: )(?:MCP error -?\d+: )+/, "$1");
}

/** Classifies anything thrown by the SDK, a transport or Node into one McpFailure. */
export function classify(
  error: unknown,
  context: { aborted?: boolean; hadSession?: boolean } = {},
): McpFailure {
  if (context.aborted) return { type: "cancelled", message: "cancelled" };
  if (error instanceof UnauthorizedError)
    return { type: "auth_required", message: error.message || "the server requires authorization" };
  if (error instanceof StreamableHTTPError) {
    const status = error.code;
    if (status === 404 && context.hadSession)
      return { type: "session_expired", message: "the server ended the session (HTTP 404)" };
    if (status === 401 || status === 403)
      return { type: "auth_required", message: `the server refused the credentials (HTTP ${status})` };
    return {
      type: "connect_failed",
      message: messageOf(error),
      ...(status !== undefined && status > 0 ? { status } : {}),
    };
  }
  if (error instanceof SseError) {
    if (error.code === 401 || error.code === 403)
      return { type: "auth_required", message: `the server refused the credentials (HTTP ${error.code})` };
    return {
      type: "connect_failed",
      message: messageOf(error),
      ...(error.code ? { status: error.code } : {}),
    };
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed)
      return { type: "disconnected", message: "the connection closed" };
    if (error.code === ErrorCode.RequestTimeout)
      return { type: "timeout", message: onePrefix(error.message) };
    return {
      type: "protocol_error",
      message: onePrefix(error.message),
      code: error.code,
      ...(error.data === undefined ? {} : { data: jsonSafe(error.data) }),
    };
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR")
    return { type: "spawn_failed", message: messageOf(error) };
  // fetch (undici) wraps a network failure in a TypeError whose cause carries the errno.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (error instanceof TypeError && typeof cause?.message === "string")
    return { type: "connect_failed", message: cause.message };
  return { type: "connect_failed", message: messageOf(error) };
}

function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

/** True when the failure says the connection itself is gone (reconnect before the next call). */
export function isConnectionLoss(failure: McpFailure): boolean {
  return (
    failure.type === "disconnected" || failure.type === "session_expired" || failure.type === "connect_failed"
  );
}
