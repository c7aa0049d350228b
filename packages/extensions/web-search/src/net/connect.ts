// Opens the connection for one request: the kernel's network service (runtime.net) connects to the
// address that was checked (never a second DNS answer), directly or through the proxy the
// environment names; TLS on top names the host for SNI and the certificate check.
import { isIP, type Socket } from "node:net";
import type { RuntimeNet } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { describeSocketError, type NetError, netError } from "./errors.js";

export interface ConnectOptions {
  url: URL;
  /** The checked IP to connect to; undefined: connect by name (a host the user allowlisted). */
  address?: string;
  connect: RuntimeNet["connect"];
  /** Extra trusted certificates (a test CA); the system store otherwise. */
  ca?: string[];
  signal: AbortSignal;
}

/** Resolves once the TLS handshake is done, or with its error. */
function secure(socket: Socket, where: string, signal: AbortSignal) {
  return new Promise<Result<Socket, NetError>>((resolve) => {
    const done = (result: Result<Socket, NetError>) => {
      socket.off("secureConnect", onReady);
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
    socket.once("secureConnect", onReady);
    socket.once("error", onError);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export async function openConnection(options: ConnectOptions): Promise<Result<Socket, NetError>> {
  const { url, signal } = options;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const opened = await options.connect(url, {
    ...(options.address !== undefined ? { address: options.address } : {}),
    signal,
  });
  if (!opened.ok) {
    const { error } = opened;
    if (error.type === "aborted") return err(netError("aborted", "the request was stopped"));
    if (error.type === "proxy") return err(netError("proxy", error.message));
    const where = `${url.host} (${options.address ?? hostname})`;
    return err(describeSocketError({ code: error.code, message: error.message }, where));
  }
  if (url.protocol !== "https:") return ok(opened.socket);
  // node:tls on the first https fetch: the extension's activation does not pay for loading it.
  const secured = process.getBuiltinModule("node:tls").connect({
    socket: opened.socket,
    host: hostname,
    ...(isIP(hostname) ? {} : { servername: hostname }),
    ALPNProtocols: ["http/1.1"],
    ...(options.ca ? { ca: options.ca } : {}),
  });
  return secure(secured, url.host, signal);
}
