// Refresh-token rotation, enforced at the wire: a refresh token the server replaced is never
// sent again. Concurrent refreshes with one token (two requests hit 401 together) share a
// single exchange, and a token another Keel process already rotated is answered from the store.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type AuthStore, hashToken } from "./store.js";

interface Exchange {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
}

function refreshTokenOf(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  const params =
    body instanceof URLSearchParams ? body : typeof body === "string" ? new URLSearchParams(body) : undefined;
  if (params?.get("grant_type") !== "refresh_token") return undefined;
  return params.get("refresh_token") ?? undefined;
}

function toResponse(exchange: Exchange): Response {
  return new Response(exchange.body, {
    status: exchange.status,
    statusText: exchange.statusText,
    headers: exchange.headers,
  });
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

export function guardRefresh(store: AuthStore, fetch: FetchLike): FetchLike {
  const inflight = new Map<string, Promise<Exchange>>();
  return async (input, init) => {
    const refreshToken = refreshTokenOf(init);
    if (refreshToken === undefined) return fetch(input, init);
    const key = hashToken(refreshToken);
    const pending = inflight.get(key);
    if (pending) return toResponse(await pending);
    if (store.isSpent(refreshToken)) {
      const current = store.entry()?.tokens;
      if (current?.refresh_token && current.refresh_token !== refreshToken) {
        const { savedAt: _savedAt, issuer: _issuer, ...tokens } = current;
        return json(200, tokens);
      }
      return json(400, {
        error: "invalid_grant",
        error_description: "this refresh token was replaced by the server; Keel does not send it again",
      });
    }
    const exchange = (async (): Promise<Exchange> => {
      const response = await fetch(input, init);
      const body = await response.text();
      if (response.ok) {
        try {
          const next = (JSON.parse(body) as { refresh_token?: unknown }).refresh_token;
          if (typeof next === "string" && next !== refreshToken) store.markSpent(refreshToken);
        } catch {
          // not JSON: the SDK reports the bad response
        }
      }
      return {
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body,
      };
    })();
    inflight.set(key, exchange);
    try {
      return toResponse(await exchange);
    } finally {
      inflight.delete(key);
    }
  };
}
