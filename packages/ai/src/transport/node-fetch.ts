// The provider SDKs' HTTP transport: fetch's contract over node:http(s). Node 20's global fetch
// spends ~20 ms of a process's first request building its dispatcher and compiling its WASM
// HTTP parser; node:http parses natively. HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured
// (./proxy.ts): https through a CONNECT tunnel, http in absolute form. Requests this does not
// cover (other schemes, streamed or form bodies) go to the global fetch unchanged. Headers and the
// Response are ./fetch-types.ts's, so a request never loads undici; node:https and node:tls load
// with the first https connection and node:zlib with the first compressed body (each costs a start
// milliseconds it need not pay before its first request).
import {
  type ClientRequestArgs,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import type * as Https from "node:https";
import { isIP, connect as netConnect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { FetchHeaders, type FetchHeadersInit, FetchResponse, NULL_BODY } from "./fetch-types.js";
import {
  defaultPort,
  describeProxy,
  type Env,
  openTunnel,
  ProxyError,
  type ProxyRoute,
  proxyFor,
  tlsConnect,
} from "./proxy.js";

const https = () => process.getBuiltinModule("node:https");

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** How long a connection opened ahead of its first request waits for it before closing. */
const PRECONNECT_IDLE_MS = 30_000;

/** Connections opened by preconnect(), by origin, until a request takes them. */
const warm = new Map<string, Socket>();

function takeWarm(origin: string): Socket | undefined {
  const socket = warm.get(origin);
  warm.delete(origin);
  if (!socket || socket.destroyed) return undefined;
  socket.setTimeout(0);
  socket.ref();
  return socket;
}

/** Agents that hand a request the connection preconnect() opened for its origin, then pool it. */
type Connect = (e: Error | null, stream: Duplex) => void;
class WarmHttpAgent extends HttpAgent {
  override createConnection(options: ClientRequestArgs, callback?: Connect): Duplex | null | undefined {
    return takeWarm(`http://${options.host}:${options.port}`) ?? super.createConnection(options, callback);
  }
}
const httpAgent = new WarmHttpAgent({ keepAlive: true });

/** The https agents, made with the first https connection (node:https is loaded then). */
interface HttpsAgents {
  warm: Https.Agent;
  plain: () => Https.Agent;
  tunnel: (route: ProxyRoute) => Https.Agent;
}
let httpsAgents: HttpsAgents | undefined;
function httpsAgentsOf(): HttpsAgents {
  if (httpsAgents) return httpsAgents;
  const { Agent } = https();
  class WarmHttpsAgent extends Agent {
    override createConnection(options: ClientRequestArgs, callback?: Connect): Duplex | null | undefined {
      return takeWarm(`https://${options.host}:${options.port}`) ?? super.createConnection(options, callback);
    }
  }
  /** https through a proxy: each connection is a CONNECT tunnel, then TLS to the server inside it. */
  class TunnelAgent extends Agent {
    constructor(private readonly route: ProxyRoute) {
      super({ keepAlive: true });
    }
    override createConnection(options: ClientRequestArgs, callback?: Connect): Duplex | null | undefined {
      const host = String(options.host ?? "localhost");
      const port = Number(options.port ?? 443);
      openTunnel(this.route, `${isIP(host) === 6 ? `[${host}]` : host}:${port}`).then(
        (socket) =>
          callback?.(
            null,
            tlsConnect({
              socket,
              host,
              ALPNProtocols: ["http/1.1"],
              ...(isIP(host) ? {} : { servername: host }),
            }),
          ),
        (e: Error) => callback?.(e, undefined as unknown as Duplex),
      );
      return undefined;
    }
  }
  httpsAgents = {
    warm: new WarmHttpsAgent({ keepAlive: true }),
    plain: () => new Agent({ keepAlive: true }),
    tunnel: (route) => new TunnelAgent(route),
  };
  return httpsAgents;
}

/** Pooled connections per proxy: tunnels for https, connections to the proxy for http. */
const proxyAgents = new Map<string, HttpAgent>();
function proxyAgent(route: ProxyRoute, target: "http:" | "https:"): HttpAgent {
  const key = `${target} ${route.url.href}`;
  let agent = proxyAgents.get(key);
  if (!agent) {
    agent =
      target === "https:"
        ? httpsAgentsOf().tunnel(route)
        : route.url.protocol === "https:"
          ? httpsAgentsOf().plain()
          : new HttpAgent({ keepAlive: true });
    proxyAgents.set(key, agent);
  }
  return agent;
}

/** The proxy for a URL; a misconfigured proxy variable counts as one, so nothing goes direct. */
function proxied(url: URL): boolean {
  try {
    return proxyFor(url) !== undefined;
  } catch {
    return true;
  }
}

/**
 * Opens the TCP (and TLS) connection to `baseUrl`'s origin now, so the first request finds it
 * ready instead of paying the handshakes: a CLI can call this while it is still setting up. Never
 * throws and never keeps the process alive; an unused connection closes after 30 s.
 */
export function preconnect(baseUrl: string): void {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  // Through a proxy the request opens its own tunnel.
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || proxied(url)) return;
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const origin = `${url.protocol}//${host}:${port}`;
  if (warm.has(origin)) return;
  const socket =
    url.protocol === "https:"
      ? tlsConnect({ host, port, ALPNProtocols: ["http/1.1"], ...(isIP(host) ? {} : { servername: host }) })
      : netConnect({ host, port });
  socket.unref();
  socket.setTimeout(PRECONNECT_IDLE_MS, () => socket.destroy());
  // A failed preconnect only means the request connects on its own, and reports any error then.
  socket.once("error", () => socket.destroy());
  socket.once("close", () => {
    if (warm.get(origin) === socket) warm.delete(origin);
  });
  warm.set(origin, socket);
}

type Body = string | Uint8Array | ArrayBuffer | null | undefined;

function isSimpleBody(body: unknown): body is Body {
  return (
    body == null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer
  );
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** The body as fetch delivers it: decoded, and a cut connection is TypeError("terminated"). */
function bodyStream(res: IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? process.getBuiltinModule("node:zlib").createGunzip()
      : encoding === "deflate"
        ? process.getBuiltinModule("node:zlib").createInflate()
        : encoding === "br"
          ? process.getBuiltinModule("node:zlib").createBrotliDecompress()
          : undefined;
  const source = decoder ? res.pipe(decoder) : res;
  if (decoder) res.on("error", (e) => decoder.destroy(e));
  // Node may still deliver an event after the reader has cancelled; the controller must not see it.
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      source.on("data", (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once("end", () => {
        if (open) controller.close();
        open = false;
      });
      source.once("error", (e) => {
        if (open)
          controller.error(signal?.aborted ? abortReason(signal) : new TypeError("terminated", { cause: e }));
        open = false;
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      open = false;
      res.destroy();
    },
  });
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  env: Env,
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const target = url.protocol as "http:" | "https:";
    let route: ProxyRoute | undefined;
    try {
      route = proxyFor(url, env);
    } catch (e) {
      reject(new TypeError("fetch failed", { cause: e }));
      return;
    }
    let req: ReturnType<typeof httpRequest>;
    if (!route) {
      const options: RequestOptions = {
        method,
        headers,
        agent: target === "https:" ? httpsAgentsOf().warm : httpAgent,
      };
      req = target === "https:" ? https().request(url, options) : httpRequest(url, options);
    } else if (target === "https:") {
      req = https().request(url, { method, headers, agent: proxyAgent(route, target) });
    } else {
      // Plain http goes to the proxy itself, the target in absolute form.
      const proxyHost = route.url.hostname.replace(/^\[(.*)\]$/, "$1");
      req = (route.url.protocol === "https:" ? https().request : httpRequest)({
        host: proxyHost,
        port: defaultPort(route.url),
        path: url.href,
        method,
        headers: {
          ...headers,
          host: url.host,
          ...(route.authorization ? { "proxy-authorization": route.authorization } : {}),
        },
        agent: proxyAgent(route, target),
        ...(route.url.protocol === "https:" && !isIP(proxyHost) ? { servername: proxyHost } : {}),
      });
    }
    const onAbort = () => req.destroy(signal ? (abortReason(signal) as Error) : undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res) => {
      // From here an abort destroys the body, which the stream reports.
      res.once("close", () => signal?.removeEventListener("abort", onAbort));
      resolve(res);
    });
    req.once("error", (e) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(abortReason(signal));
      // Before an answer, an http request through a proxy failed at the proxy.
      const cause =
        route && target === "http:" && !(e instanceof ProxyError)
          ? new ProxyError(
              `the proxy ${describeProxy(route)} could not be reached: ${e.message}`,
              {
                proxy: describeProxy(route),
                variable: route.variable,
              },
              e,
            )
          : e;
      reject(new TypeError("fetch failed", { cause }));
    });
    req.end(body);
  });
}

/**
 * `fetch` for string/bytes bodies over http: and https:, with fetch's semantics where the SDKs
 * rely on them: a Response whose body is a web stream, errors as TypeError("fetch failed") and
 * TypeError("terminated") with the socket error as cause, AbortError on abort, gzip/deflate/br
 * decoded, redirects followed.
 */
export async function nodeFetch(
  input: string | URL | Request,
  init: RequestInit = {},
  env: Env = process.env,
): Promise<Response> {
  const start =
    typeof input === "string" ? URL.canParse(input) && new URL(input) : input instanceof URL && input;
  if (!start || (start.protocol !== "http:" && start.protocol !== "https:") || !isSimpleBody(init.body))
    return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);

  const headers: Record<string, string> = {};
  for (const [name, value] of new FetchHeaders(init.headers as FetchHeadersInit)) headers[name] = value;
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body == null ? undefined : Buffer.from(init.body as string | Uint8Array);
  let url = start;
  for (let hop = 0; ; hop++) {
    if (body !== undefined) headers["content-length"] = String(body.byteLength);
    const res = await send(url, method, headers, body, signal, env);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location && init.redirect !== "manual") {
      res.resume();
      if (init.redirect === "error" || hop >= MAX_REDIRECTS)
        throw new TypeError("fetch failed", { cause: new Error(`redirect refused after ${hop + 1} hops`) });
      url = new URL(location, url);
      if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = undefined;
        delete headers["content-length"];
        delete headers["content-type"];
      }
      continue;
    }
    const responseHeaders = new FetchHeaders();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
      responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    const hasBody = !NULL_BODY.has(status) && method !== "HEAD";
    if (!hasBody) res.resume();
    // The SDKs read it as a Response; it is the subset of one that they use (./fetch-types.ts).
    return new FetchResponse(hasBody ? bodyStream(res, signal) : null, {
      status,
      statusText: res.statusMessage ?? "",
      headers: responseHeaders,
    }) as unknown as Response;
  }
}
