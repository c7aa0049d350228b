// Opens the connection for one request: to the address that was checked (never a second DNS
// answer), directly or through a CONNECT tunnel, with TLS naming the host for SNI and the
// certificate check. The dialer is the seam tests use to keep every packet on loopback.
import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { err, ok, type Result } from "neverthrow";
import { describeSocketError, type NetError, netError } from "./errors.js";
import { describeProxy, type ProxyChoice } from "./proxy.js";

/** Opens a TCP connection; `net.connect` unless a test maps addresses to local servers. */
export type Dialer = (target: { host: string; port: number }) => Socket;

export const defaultDialer: Dialer = ({ host, port }) => netConnect({ host, port });

export interface ConnectOptions {
  url: URL;
  /** The checked IP to connect to; undefined: connect by name (a host the user allowlisted). */
  address?: string;
  proxy?: ProxyChoice;
  dial: Dialer;
  /** Extra trusted certificates (a test CA); the system store otherwise. */
  ca?: string[];
  signal: AbortSignal;
}

export function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

const bracket = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/** Resolves once `socket` is connected (or its TLS handshake done), or with its error. */
function settle(socket: Socket, event: "connect" | "secureConnect", where: string, signal: AbortSignal) {
  return new Promise<Result<Socket, NetError>>((resolve) => {
    const done = (result: Result<Socket, NetError>) => {
      socket.off(event, onReady);
      socket.off("error", onError);
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const onReady = () => done(ok(socket));
    const onError = (error: unknown) => {
      socket.destroy();
      done(err(describeSocketError(error, where)));
    };
    const onAbort = () => {
      socket.destroy();
      done(err(netError("aborted", `${where}: the request was stopped`)));
    };
    if (signal.aborted) return onAbort();
    socket.once(event, onReady);
    socket.once("error", onError);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Sends CONNECT host:port and waits for the proxy's 2xx; the socket is then the tunnel. */
async function tunnel(
  socket: Socket,
  authority: string,
  proxy: ProxyChoice,
  signal: AbortSignal,
): Promise<Result<Socket, NetError>> {
  const where = `the proxy ${describeProxy(proxy)}`;
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxy.authorization) lines.push(`Proxy-Authorization: ${proxy.authorization}`);
  socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  return new Promise((resolve) => {
    let head = Buffer.alloc(0);
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("end", onEnd);
      signal.removeEventListener("abort", onAbort);
    };
    const fail = (error: NetError) => {
      cleanup();
      socket.destroy();
      resolve(err(error));
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > 16 * 1024) fail(netError("proxy", `${where} sent an oversized CONNECT answer`));
        return;
      }
      cleanup();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString("latin1"));
      if (!status || !status[1]!.startsWith("2")) {
        socket.destroy();
        const code = status ? status[1] : "an unreadable answer";
        const hint = code === "407" ? " (it wants credentials: put them in the proxy URL)" : "";
        resolve(err(netError("proxy", `${where} refused to connect to ${authority}: ${code}${hint}`)));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(ok(socket));
    };
    const onError = (error: unknown) => fail(describeSocketError(error, where));
    const onEnd = () => fail(netError("proxy", `${where} closed the connection during CONNECT`));
    const onAbort = () => fail(netError("aborted", `${where}: the request was stopped`));
    socket.on("data", onData);
    socket.once("error", onError);
    socket.once("end", onEnd);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export async function openConnection(options: ConnectOptions): Promise<Result<Socket, NetError>> {
  const { url, proxy, signal } = options;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = defaultPort(url);
  const connectHost = options.address ?? hostname;
  let socket: Socket;
  if (proxy) {
    const proxyPort = defaultPort(proxy.url);
    const where = `the proxy ${describeProxy(proxy)}`;
    const raw = options.dial({ host: proxy.url.hostname.replace(/^\[(.*)\]$/, "$1"), port: proxyPort });
    const connected = await settle(raw, "connect", where, signal);
    if (connected.isErr()) return connected;
    socket = connected.value;
    if (proxy.url.protocol === "https:") {
      const secured = tlsConnect({
        socket,
        servername: proxy.url.hostname,
        ...(options.ca ? { ca: options.ca } : {}),
      });
      const ready = await settle(secured, "secureConnect", where, signal);
      if (ready.isErr()) return ready;
      socket = ready.value;
    }
    const tunnelled = await tunnel(socket, `${bracket(connectHost)}:${port}`, proxy, signal);
    if (tunnelled.isErr()) return tunnelled;
    socket = tunnelled.value;
  } else {
    const raw = options.dial({ host: connectHost, port });
    const connected = await settle(raw, "connect", `${url.host} (${connectHost})`, signal);
    if (connected.isErr()) return connected;
    socket = connected.value;
  }
  if (url.protocol !== "https:") return ok(socket);
  // SNI and the certificate check name the host, though the socket goes to the checked address.
  const secured = tlsConnect({
    socket,
    host: hostname,
    ...(isIP(hostname) ? {} : { servername: hostname }),
    ALPNProtocols: ["http/1.1"],
    ...(options.ca ? { ca: options.ca } : {}),
  });
  return settle(secured, "secureConnect", url.host, signal);
}
