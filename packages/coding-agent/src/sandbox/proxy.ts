// Keel's network proxy for sandboxed commands: HTTP CONNECT (https, anything tunnelled) and plain
// http requests, to the hosts the user allows and nowhere else. It listens on 127.0.0.1 only; the
// sandbox reaches it through the link in network-link.ts, never through the host's network.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { domainMatches, normalizeDomain } from "../permissions/rules.js";

/** Resolves a host name to one address (dns.lookup's shape); tests pass a stub. */
export type Lookup = (host: string) => Promise<{ address: string; family: number }>;

export interface ProxyOptions {
  /** `example.com` or `*.example.com`, as in `sandbox.allowedDomains`. */
  allowedDomains: readonly string[];
  lookup?: Lookup;
  /** Hears each refused request (host and why), for the debug log. */
  onRefused?: (host: string, reason: string) => void;
}

export interface NetworkProxy {
  port: number;
  close(): Promise<void>;
}

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = normalizeDomain(host.replace(/^\[|\]$/g, ""));
  return allowed.some((entry) => domainMatches(`domain:${entry}`, h));
}

/** node:dns/promises on the first name a sandboxed command connects to, not at every start. */
const defaultLookup: Lookup = (host) => process.getBuiltinModule("node:dns/promises").lookup(host);

function target(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  if (!m) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: m[1]!, port };
}

export async function startProxy(options: ProxyOptions): Promise<NetworkProxy> {
  const lookup = options.lookup ?? defaultLookup;
  const resolve = async (host: string) => {
    const bare = host.replace(/^\[|\]$/g, "");
    return isIP(bare) ? bare : (await lookup(bare)).address;
  };
  const refuse = (host: string, reason: string) => {
    options.onRefused?.(host, reason);
    return `Keel's sandbox does not allow ${host}: ${reason}. Allowed hosts are set in sandbox.allowedDomains.`;
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end("Keel's proxy takes absolute http:// URLs or CONNECT.\n");
      return;
    }
    if (url.protocol !== "http:") {
      res.writeHead(400).end("Keel's proxy forwards plain http:// requests; use CONNECT for others.\n");
      return;
    }
    if (!hostAllowed(url.hostname, options.allowedDomains)) {
      res
        .writeHead(403, { "content-type": "text/plain" })
        .end(`${refuse(url.hostname, "not in the allowlist")}\n`);
      return;
    }
    resolve(url.hostname).then(
      (address) => {
        const upstream = httpRequest(
          {
            host: address,
            port: url.port === "" ? 80 : Number(url.port),
            method: req.method,
            path: `${url.pathname}${url.search}`,
            headers: { ...req.headers, host: url.host },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on("error", (e) => res.destroy(e));
        req.pipe(upstream);
      },
      () => res.writeHead(502).end(`Keel's proxy could not resolve ${url.hostname}.\n`),
    );
  });

  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const to = target(req.url ?? "", 443);
    client.on("error", () => client.destroy());
    if (!to) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    if (!hostAllowed(to.host, options.allowedDomains)) {
      const body = `${refuse(to.host, "not in the allowlist")}\n`;
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    resolve(to.host).then(
      (address) => {
        const upstream = connect({ host: address, port: to.port }, () => {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on("error", () => {
          if (!client.destroyed) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
        });
        client.on("close", () => upstream.destroy());
      },
      () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
