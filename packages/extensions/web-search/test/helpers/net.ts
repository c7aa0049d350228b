// Local peers for the network tests: HTTP servers on 127.0.0.1, a CONNECT proxy, and the two
// seams that keep every packet on loopback — a resolver stub and a dialer that maps "public"
// addresses to local servers and records every connection it opens.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { isIP, connect as netConnect, type Socket } from "node:net";
import { createNet } from "@keel/ai";

export interface Local {
  port: number;
  url: (path?: string) => string;
  requests: IncomingMessage[];
  close(): Promise<void>;
}

/**
 * A self-signed certificate (its own CA) for example.com, *.example.com, example.test,
 * *.example.test, localhost and 127.0.0.1, made once with openssl and valid for 100 years.
 */
export const TEST_CA = readFileSync(new URL("../fixtures/test-cert.pem", import.meta.url), "utf8");
const TEST_KEY = readFileSync(new URL("../fixtures/test-key.pem", import.meta.url), "utf8");

export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: { tls?: boolean } = {},
): Promise<Local> {
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    handler(req, res);
  };
  const server: Server = options.tls
    ? (createTlsServer({ cert: TEST_CA, key: TEST_KEY }, onRequest) as unknown as Server)
    : createServer(onRequest);
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = "/") => `${options.tls ? "https" : "http"}://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Dial {
  host: string;
  port: number;
}

/**
 * A dialer for the fetcher: loopback addresses connect as they are, addresses in `internet`
 * connect to the local port they map to, anything else fails at once without a packet.
 */
export function fakeInternet(internet: Record<string, number> = {}) {
  const dials: Dial[] = [];
  const dial = ({ host, port }: Dial): Socket => {
    dials.push({ host, port });
    const mapped = internet[`${host}:${port}`] ?? internet[host];
    if (mapped !== undefined) return netConnect({ host: "127.0.0.1", port: mapped });
    if (host === "127.0.0.1" || host === "::1" || host === "localhost") return netConnect({ host, port });
    throw new Error(`test dialer: refusing to connect to ${host}:${port} (not loopback, not mapped)`);
  };
  return { dial, dials };
}

/** Answers from a table; any other name fails as DNS would, so no real lookup ever happens. */
export function stubResolver(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolver = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    if (isIP(hostname)) return [hostname];
    const answer = table[hostname];
    if (answer) return answer;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
  return { resolver, asked };
}

/** A CONNECT (and absolute-form) proxy on 127.0.0.1 that records what it was asked to reach. */
export async function startProxy(route: (authority: string) => { host: string; port: number } | undefined) {
  const connects: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    // Absolute-form request (plain http through the proxy).
    forwarded.push(req.url ?? "");
    const target = new URL(req.url ?? "");
    const to = route(target.host);
    if (!to) {
      res.writeHead(502).end();
      return;
    }
    const upstream = netConnect(to, () => {
      upstream.write(`${req.method} ${target.pathname}${target.search} HTTP/1.1\r\n`);
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (!/^proxy-/i.test(req.rawHeaders[i]!))
          upstream.write(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
      upstream.write("\r\n");
      req.pipe(upstream);
      upstream.pipe(res.socket!);
    });
  });
  server.on("connect", (req, client: Socket, head) => {
    connects.push(req.url ?? "");
    const to = route(req.url ?? "");
    if (!to) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = netConnect(to, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * What the runtime's `net.connect` does (it is @keel/ai's), over `dial` and with `env` as the proxy
 * variables: the extension's connections go through the kernel's one proxy implementation.
 */
export function connectVia(dial: ((target: Dial) => Socket) | undefined, env: Record<string, string>) {
  return createNet({ env, ...(dial ? { dial } : {}) }).connect;
}
