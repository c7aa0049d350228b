// The kernel's network service: the proxy the environment names (HTTPS_PROXY / HTTP_PROXY /
// NO_PROXY, as curl reads them) applied the same way to the model's requests and an extension's.
// Extensions may not import @keel/ai; this is how they reach its one implementation.
import type { Socket } from "node:net";

export interface NetConnectOptions {
  /**
   * Connect to this address instead of resolving the URL's host (an address a guard already
   * resolved and checked, so no second DNS answer can differ). Through a proxy the tunnel asks for
   * it too. NO_PROXY is still judged on the URL's host.
   */
  address?: string;
  signal?: AbortSignal;
}

export interface NetError {
  /** `proxy`: a proxy variable is not a usable URL, or the proxy failed or refused the tunnel. */
  type: "proxy" | "connect" | "aborted";
  message: string;
  /** The proxy without credentials (`http://proxy:3128`), when one was in the way. */
  proxy?: string;
  /** The proxy's answer to CONNECT, when it was not 2xx. */
  status?: number;
  /** The socket's errno code (`ECONNREFUSED`, `ERR_TLS_…`), for `connect`. */
  code?: string;
}

export type NetConnectOutcome = { ok: true; socket: Socket; proxy?: string } | { ok: false; error: NetError };

export interface RuntimeNet {
  /**
   * `fetch` with the environment's proxy: a request HTTPS_PROXY / HTTP_PROXY covers (NO_PROXY
   * aside) goes through it (a CONNECT tunnel for https), the rest directly. A proxy variable that
   * is not a usable URL fails the request as fetch fails (TypeError), never a silent direct one.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /**
   * A TCP connection for a request to `url`: straight to its host (or `options.address`), or a
   * CONNECT tunnel through the proxy that covers it. TLS, when `url` is https, is the caller's.
   */
  connect(url: string | URL, options?: NetConnectOptions): Promise<NetConnectOutcome>;
}
