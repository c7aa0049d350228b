// The network service the kernel offers extensions (the SDK's RuntimeNet): the same proxy rules
// as the model's requests, as a fetch and as a raw connection (for a caller that must connect to
// an address it checked itself, like WebFetch's private-network guard). Failures are values here.
import { isIP, connect as netConnect, type Socket } from "node:net";
import {
  type Dialer,
  defaultPort,
  describeProxy,
  type Env,
  openTunnel,
  ProxyError,
  proxyFor,
} from "./proxy.js";
import { proxyFetch } from "./proxy-fetch.js";

/**
 * Mirrors @keel/extension-sdk's NetError: ai cannot import the SDK, and coding-agent's
 * test/host/net-mirror.test.ts fails the typecheck when the two differ.
 */
export interface NetError {
  type: "proxy" | "connect" | "aborted";
  message: string;
  proxy?: string;
  status?: number;
  code?: string;
}

/** Implements the SDK's NetConnectOutcome (what RuntimeNet.connect answers), so a union, not a Result. */
export type NetConnectOutcome = { ok: true; socket: Socket; proxy?: string } | { ok: false; error: NetError };

export interface NetOptions {
  /** The proxy variables; default process.env, read at each request. */
  env?: Env;
  /** How TCP connections are opened (tests map addresses to local servers); default net.connect. */
  dial?: Dialer;
}

const bracket = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);
const errnoOf = (e: unknown) => {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
};

function waitConnected(socket: Socket, signal: AbortSignal | undefined): Promise<NetConnectOutcome> {
  return new Promise((resolve) => {
    const done = (outcome: NetConnectOutcome) => {
      socket.off("connect", onConnect);
      socket.off("error", onError);
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onConnect = () => done({ ok: true, socket });
    const onError = (e: Error) => {
      socket.destroy();
      const code = errnoOf(e);
      done({ ok: false, error: { type: "connect", message: e.message, ...(code ? { code } : {}) } });
    };
    const onAbort = () => {
      socket.destroy();
      done({ ok: false, error: { type: "aborted", message: "the connection was stopped" } });
    };
    if (signal?.aborted) return onAbort();
    if (!socket.connecting && !socket.destroyed) return onConnect();
    socket.once("connect", onConnect);
    socket.once("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A TCP connection for a request to `url`: to `address` (or the URL's host) directly, or a CONNECT
 * tunnel to it through the proxy HTTPS_PROXY / HTTP_PROXY names for `url` (NO_PROXY judged on the
 * URL's host). TLS to the server is the caller's.
 */
export async function connectFor(
  target: string | URL,
  request: { address?: string; signal?: AbortSignal } = {},
  options: NetOptions = {},
): Promise<NetConnectOutcome> {
  const url = typeof target === "string" ? (URL.canParse(target) ? new URL(target) : undefined) : target;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    return { ok: false, error: { type: "connect", message: `${String(target)} is not an http(s) URL` } };
  const dial = options.dial ?? (({ host, port }) => netConnect({ host, port }));
  const host = request.address ?? url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = defaultPort(url);
  let route: ReturnType<typeof proxyFor>;
  try {
    route = proxyFor(url, options.env ?? process.env);
  } catch (e) {
    const proxy = e instanceof ProxyError ? e.proxy : undefined;
    return {
      ok: false,
      error: { type: "proxy", message: (e as Error).message, ...(proxy ? { proxy } : {}) },
    };
  }
  if (!route) {
    let socket: Socket;
    try {
      socket = dial({ host, port });
    } catch (e) {
      return { ok: false, error: { type: "connect", message: (e as Error).message } };
    }
    return waitConnected(socket, request.signal);
  }
  const proxy = describeProxy(route);
  try {
    const socket = await openTunnel(route, `${bracket(host)}:${port}`, {
      dial,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return { ok: true, socket, proxy };
  } catch (e) {
    if (request.signal?.aborted)
      return { ok: false, error: { type: "aborted", message: "the connection was stopped", proxy } };
    if (!(e instanceof ProxyError)) return { ok: false, error: { type: "proxy", message: String(e), proxy } };
    const code = errnoOf(e.cause);
    return {
      ok: false,
      error: {
        type: "proxy",
        message: e.message,
        proxy,
        ...(e.status !== undefined ? { status: e.status } : {}),
        ...(code ? { code } : {}),
      },
    };
  }
}

/** The kernel's network service: the SDK's `runtime.net`, one implementation for every caller. */
export function createNet(options: NetOptions = {}): {
  fetch: typeof fetch;
  connect: (
    url: string | URL,
    request?: { address?: string; signal?: AbortSignal },
  ) => Promise<NetConnectOutcome>;
} {
  const env = options.env;
  return {
    // nodeFetch for what a proxy covers; the process's fetch (which keel may itself have wrapped) for the rest.
    fetch: (input, init) => proxyFetch(globalThis.fetch, env)(input, init),
    connect: (url, request) => connectFor(url, request, options),
  };
}
