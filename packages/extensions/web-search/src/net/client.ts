// The HTTP client both tools use: one request to one URL, through the proxy the environment
// names (the kernel's runtime.net), with the private-network guard in front when the URL comes
// from the model.
import type { RuntimeNet } from "@keel/extension-sdk";
import { err, type Result } from "neverthrow";
import { openConnection } from "./connect.js";
import type { NetError } from "./errors.js";
import { netError } from "./errors.js";
import { type CheckedTarget, checkTarget, type GuardPolicy, type Resolver, systemResolver } from "./guard.js";
import { type HttpResponse, sendRequest } from "./http.js";

export interface NetworkSeams {
  /** DNS; tests pass a stub so no name is ever looked up for real. */
  resolver?: Resolver;
  /** Opens connections instead of the runtime's `net` (tests keep every packet on loopback with it). */
  connect?: RuntimeNet["connect"];
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

/** `net` opens the connections (the runtime's, so the proxy rules are the kernel's). */
export function createHttpClient(net: Pick<RuntimeNet, "connect">, seams: NetworkSeams = {}): HttpClient {
  const resolver = seams.resolver ?? systemResolver;
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
      const socket = await openConnection({
        url,
        ...(address !== undefined ? { address } : {}),
        connect: seams.connect ?? net.connect,
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
