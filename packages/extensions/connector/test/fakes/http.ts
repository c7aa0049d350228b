// A small recording HTTP server on 127.0.0.1 for the service fakes: every request is kept
// (method, path, query, headers, body) and the next responses can be forced (errors, limits).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  raw: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as is (a diff), with this content type. */
  text?: { contentType: string; body: string };
}

export type Handler = (request: RecordedRequest) => Reply | undefined;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** The next request gets this reply, whatever it asks. */
  failNext(reply: Reply): void;
  close(): Promise<void>;
}

export async function startFakeServer(handle: Handler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const forced: Reply[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", "http://fake");
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
        raw,
      };
      requests.push(recorded);
      const reply = forced.shift() ?? handle(recorded) ?? { status: 404, body: { message: "Not Found" } };
      if (reply.text) {
        res.writeHead(reply.status, { "content-type": reply.text.contentType, ...reply.headers });
        res.end(reply.text.body);
        return;
      }
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8", ...reply.headers });
      res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (reply) => {
      forced.push(reply);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
