// Which proxy a model request goes through, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl
// reads them (lower case first), and the CONNECT tunnel an https request takes through it.
// Failures reject with ProxyError, which names the proxy and the variable so the error a user
// sees says which setting to check.
import { BlockList, isIP, connect as netConnect, type Socket } from "node:net";
import type { ConnectionOptions, TLSSocket } from "node:tls";

/** A TLS connection through node:tls, loaded on first use (a start that opens none does not pay for it). */
export const tlsConnect = (options: ConnectionOptions): TLSSocket =>
  process.getBuiltinModule("node:tls").connect(options);

export interface ProxyRoute {
  url: URL;
  /** The variable it came from, as users write it: `HTTPS_PROXY` or `HTTP_PROXY`. */
  variable: "HTTPS_PROXY" | "HTTP_PROXY";
  /** `Basic …` from the proxy URL's user info, for Proxy-Authorization. */
  authorization?: string;
}

/** A proxy that is misconfigured, unreachable or refused the tunnel. */
export class ProxyError extends Error {
  override readonly name = "ProxyError";
  /** The proxy without credentials (`http://proxy:3128`), and the variable that named it. */
  readonly proxy: string;
  readonly variable: string;
  /** The proxy's answer to CONNECT, when it answered with something else than 2xx. */
  readonly status?: number;

  constructor(message: string, route: { proxy: string; variable: string; status?: number }, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.proxy = route.proxy;
    this.variable = route.variable;
    if (route.status !== undefined) this.status = route.status;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

function envValue(env: Env, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

const describe = (url: URL) => `${url.protocol}//${url.host}`;
const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
export const defaultPort = (url: URL) => (url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80);

/** `::ffff:7f00:1` / `::ffff:127.0.0.1` → `127.0.0.1`: the IPv4 host an IPv4-mapped address is. */
function unmapped(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (!hex) return address;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

const withoutTrailingDots = (name: string) => name.replace(/\.+$/, "");

/**
 * NO_PROXY: `*`, host names (a leading `.` or `*.` covers subdomains too), `host:port` and
 * `[v6]:port`, IPs and CIDRs (bracketed or not; an IPv4-mapped IPv6 address is its IPv4 host).
 */
export function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = unmapped(withoutTrailingDots(unbracket(target.hostname)));
  const port = String(defaultPort(target));
  const family = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    // host:port (one colon, so not a bare IPv6 address) or [v6]:port.
    const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
    if (withPort) {
      if (withPort[2] !== port) continue;
      entry = withPort[1]!;
    }
    const [rawAddress, bits] = entry.split("/");
    const address = unmapped(unbracket(rawAddress ?? ""));
    const entryFamily = isIP(address);
    if (entryFamily !== 0) {
      if (family !== entryFamily) continue;
      const list = new BlockList();
      const type = entryFamily === 6 ? "ipv6" : "ipv4";
      try {
        if (bits === undefined) list.addAddress(address, type);
        else list.addSubnet(address, Number(bits), type);
      } catch {
        continue; // a prefix length out of range: an entry that covers nothing
      }
      if (list.check(host, type)) return true;
      continue;
    }
    const domain = withoutTrailingDots(unbracket(entry).replace(/^\*?\./, ""));
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/**
 * The proxy for `target`, or undefined for a direct connection. A variable that holds something
 * other than an http(s) proxy URL throws ProxyError: never a silent direct connection instead.
 */
export function proxyFor(target: URL, env: Env = process.env): ProxyRoute | undefined {
  const variable = target.protocol === "https:" ? "HTTPS_PROXY" : "HTTP_PROXY";
  const raw = envValue(env, variable);
  if (raw === undefined || bypassesProxy(target, envValue(env, "NO_PROXY"))) return undefined;
  let url: URL;
  try {
    url = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    // The value is not shown: it may hold credentials.
    throw new ProxyError(`${variable} is not a URL (expected http://host:port)`, {
      proxy: variable,
      variable,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ProxyError(
      `${variable} uses ${url.protocol}; only http:// and https:// proxies are supported`,
      {
        proxy: describe(url),
        variable,
      },
    );
  const route: ProxyRoute = { url, variable };
  if (url.username !== "") {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    route.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
  return route;
}

export function describeProxy(route: ProxyRoute): string {
  return describe(route.url);
}

/** Opens a TCP connection; `net.connect` unless a test maps addresses to local servers. */
export type Dialer = (target: { host: string; port: number }) => Socket;

const directDial: Dialer = ({ host, port }) => netConnect({ host, port });

/** A TCP (or, for an https:// proxy, TLS) connection to the proxy itself. */
export function connectToProxy(route: ProxyRoute, dial: Dialer = directDial): Socket {
  const host = unbracket(route.url.hostname);
  const port = defaultPort(route.url);
  if (route.url.protocol !== "https:") return dial({ host, port });
  const servername = isIP(host) ? {} : { servername: host };
  return dial === directDial
    ? tlsConnect({ host, port, ...servername })
    : tlsConnect({ socket: dial({ host, port }), ...servername });
}

export interface TunnelOptions {
  dial?: Dialer;
  /** Stops the tunnel being opened: the socket is destroyed and the promise rejects with the reason. */
  signal?: AbortSignal;
}

/** Opens a CONNECT tunnel to `authority` (host:port) through the proxy; resolves to the tunnel. */
export function openTunnel(
  route: ProxyRoute,
  authority: string,
  options: TunnelOptions = {},
): Promise<Socket> {
  const where = { proxy: describeProxy(route), variable: route.variable };
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const socket = connectToProxy(route, options.dial);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const settle = () => {
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("end", onEnd);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown) => {
      settle();
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > 16 * 1024)
          fail(new ProxyError(`the proxy ${where.proxy} sent an oversized answer to CONNECT`, where));
        return;
      }
      settle();
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString("latin1"))?.[1]);
      if (!(status >= 200 && status < 300)) {
        const answer = Number.isNaN(status) ? "an unreadable answer" : `${status}`;
        const hint = status === 407 ? " (it wants credentials: put them in the proxy URL)" : "";
        socket.destroy();
        reject(
          new ProxyError(`the proxy ${where.proxy} refused to tunnel to ${authority}: ${answer}${hint}`, {
            ...where,
            ...(Number.isNaN(status) ? {} : { status }),
          }),
        );
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) {
        // A server that speaks first: its bytes came with the proxy's answer. Flowing with no
        // listener yet, the socket would drop them; paused, they wait for the reader.
        socket.pause();
        socket.unshift(rest);
      }
      resolve(socket);
    };
    const onError = (e: Error) =>
      fail(new ProxyError(`the proxy ${where.proxy} could not be reached: ${e.message}`, where, e));
    const onEnd = () =>
      fail(new ProxyError(`the proxy ${where.proxy} closed the connection during CONNECT`, where));
    const onAbort = () => fail(signal?.reason);
    socket.once(route.url.protocol === "https:" ? "secureConnect" : "connect", () => {
      const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
      if (route.authorization) lines.push(`Proxy-Authorization: ${route.authorization}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", onData);
    socket.once("error", onError);
    socket.once("end", onEnd);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
