// The HTTP client both tools use: one request to one URL, through the proxy the environment
// names, with the private-network guard in front when the URL comes from the model.
import { err, type Result } from "neverthrow";
import { type Dialer, defaultDialer, openConnection } from "./connect.js";
import type { NetError } from "./errors.js";
import { netError } from "./errors.js";
import { type CheckedTarget, checkTarget, type GuardPolicy, type Resolver, systemResolver } from "./guard.js";
import { type HttpResponse, sendRequest } from "./http.js";
import { type Env, proxyFor } from "./proxy.js";

export interface NetworkSeams {
  /** DNS; tests pass a stub so no name is ever looked up for real. */
  resolver?: Resolver;
  /** TCP; tests map addresses to local servers so no packet leaves loopback. */
  dial?: Dialer;
  /** Proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); default process.env. */
  env?: Env;
  /** Extra trusted CA certificates (PEM), for tests with a local TLS server. */
  ca?: string[];
}

export interface RequestOptions {
  headers: Record<string, string>;
  maxBytes: number;
  readBody: boolean;
  signal: AbortSignal;
  /** The guard's policy; absent for endpoints the user configured (a self-hosted search server). */
  guard?: GuardPolicy;
  method?: "GET" | "POST";
  body?: string;
}

export interface HttpClient {
  /** The guard's verdict on a URL, without connecting. */
  check(url: URL, guard: GuardPolicy, signal: AbortSignal): Promise<Result<CheckedTarget, NetError>>;
  request(url: URL, options: RequestOptions): Promise<Result<HttpResponse & { address?: string }, NetError>>;
}

export function createHttpClient(seams: NetworkSeams = {}): HttpClient {
  const resolver = seams.resolver ?? systemResolver;
  const dial = seams.dial ?? defaultDialer;
  return {
    check: (url, guard, signal) => checkTarget(url, guard, resolver, signal),
    async request(url, options) {
      if (url.protocol !== "http:" && url.protocol !== "https:")
        return err(netError("invalid_url", `${url.protocol} URLs are not fetched; use http or https`));
      let address: string | undefined;
      if (options.guard) {
        const checked = await checkTarget(url, options.guard, resolver, options.signal);
        if (checked.isErr()) return err(checked.error);
        address = checked.value.address;
      }
      const proxy = proxyFor(url, seams.env ?? process.env);
      if (proxy.isErr()) return err(netError("proxy", proxy.error));
      const socket = await openConnection({
        url,
        ...(address !== undefined ? { address } : {}),
        ...(proxy.value ? { proxy: proxy.value } : {}),
        dial,
        ...(seams.ca ? { ca: seams.ca } : {}),
        signal: options.signal,
      });
      if (socket.isErr()) return err(socket.error);
      const response = await sendRequest({
        url,
        socket: socket.value,
        headers: options.headers,
        maxBytes: options.maxBytes,
        readBody: options.readBody,
        signal: options.signal,
        ...(options.method ? { method: options.method } : {}),
        ...(options.body !== undefined ? { body: options.body } : {}),
      });
      return response.map((r) => (address !== undefined ? { ...r, address } : r));
    },
  };
}
