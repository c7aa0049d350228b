// HTTP transports: Streamable HTTP first and, when a URL answers its handshake with a 4xx other
// than an auth challenge, the legacy HTTP+SSE transport (the spec's backwards-compatibility rule).
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { HttpServerSpec } from "../config/servers.js";

export interface HttpAuth {
  provider: OAuthClientProvider;
  /** Wraps fetch for every request the transport makes, OAuth ones included. */
  fetch: FetchLike;
}

export function streamableTransport(
  spec: HttpServerSpec,
  auth: HttpAuth | undefined,
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers },
    ...(auth ? { authProvider: auth.provider, fetch: auth.fetch } : {}),
  });
}

export function sseTransport(spec: HttpServerSpec, auth: HttpAuth | undefined): SSEClientTransport {
  return new SSEClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers },
    ...(auth ? { authProvider: auth.provider, fetch: auth.fetch } : {}),
  });
}

/** 400, 404, 405 and the other 4xx (but 401/403, which are auth) mean "not a Streamable HTTP endpoint". */
export function shouldFallBackToSse(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError) || error.code === undefined) return false;
  return error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
}
