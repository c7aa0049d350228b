// In-process MCP servers on 127.0.0.1 for HTTP tests: Streamable HTTP with sessions (one SDK
// server per session, restartable on the same port to test a server restart mid-session) and
// the legacy HTTP+SSE transport at /sse.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export interface TestHttpServer {
  url: string;
  port: number;
  /** Session ids the server has issued, in order. */
  sessions: string[];
  /** Every server created (one per session), newest last. */
  servers: McpServer[];
  requests: { method: string; session?: string; rpc?: string }[];
  stop(): Promise<void>;
  /** Stops and starts again on the same port with no sessions (a server restart). */
  restart(): Promise<void>;
  /** Forgets every session without closing connections: the next request on one gets 404. */
  forgetSessions(): void;
  /** JSON-RPC methods answered with HTTP 500 from now on (a server failing to list). */
  failing: Set<string>;
}

export async function startStreamableServer(
  factory: () => McpServer,
  options: { port?: number; path?: string } = {},
): Promise<TestHttpServer> {
  const path = options.path ?? "/mcp";
  let transports = new Map<string, StreamableHTTPServerTransport>();
  const forgotten: StreamableHTTPServerTransport[] = [];
  let http: Server;
  const state: TestHttpServer = {
    url: "",
    port: options.port ?? 0,
    sessions: [],
    servers: [],
    requests: [],
    failing: new Set(),
    stop: async () => {
      for (const transport of [...transports.values(), ...forgotten.splice(0)])
        await transport.close().catch(() => {});
      transports = new Map();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
    restart: async () => {
      await state.stop();
      await listen(state.port);
    },
    forgetSessions: () => {
      // Kept open (closed at stop): a closed event stream would tell the client on its own.
      forgotten.push(...transports.values());
      transports = new Map();
    },
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== path) {
      response.writeHead(404).end();
      return;
    }
    const session = request.headers["mcp-session-id"] as string | undefined;
    const parsed = request.method === "POST" ? await body(request) : undefined;
    state.requests.push({
      method: request.method ?? "",
      ...(session ? { session } : {}),
      ...((parsed as { method?: string } | undefined)?.method
        ? { rpc: (parsed as { method: string }).method }
        : {}),
    });
    const rpc = (parsed as { method?: string } | undefined)?.method;
    if (rpc && state.failing.has(rpc)) {
      response.writeHead(500).end("listing broke");
      return;
    }
    if (session) {
      const transport = transports.get(session);
      if (!transport) {
        response.writeHead(404, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32001, message: "Session not found" },
            id: null,
          }),
        );
        return;
      }
      await transport.handleRequest(request, response, parsed);
      return;
    }
    if (request.method === "POST" && isInitializeRequest(parsed)) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
          state.sessions.push(id);
        },
      });
      const server = factory();
      state.servers.push(server);
      await server.connect(transport);
      await transport.handleRequest(request, response, parsed);
      return;
    }
    response.writeHead(400).end("no session");
  };
  const listen = (port: number) =>
    new Promise<void>((resolve) => {
      http = createServer((request, response) => {
        handle(request, response).catch(() => {
          if (!response.headersSent) response.writeHead(500).end();
        });
      });
      http.listen(port, "127.0.0.1", () => {
        state.port = (http.address() as AddressInfo).port;
        state.url = `http://127.0.0.1:${state.port}${path}`;
        resolve();
      });
    });
  await listen(state.port);
  return state;
}

/** A legacy HTTP+SSE server (protocol 2024-11-05): GET /sse opens the stream, POST /messages sends. */
export async function startLegacySseServer(
  factory: () => McpServer,
): Promise<{ url: string; stop(): Promise<void> }> {
  const transports = new Map<string, SSEServerTransport>();
  const http = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/sse" && request.method === "GET") {
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      await factory().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && request.method === "POST") {
      const transport = transports.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        response.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(request, response, await body(request));
      return;
    }
    // What an old server answers to the Streamable HTTP handshake.
    response.writeHead(405).end("Method Not Allowed");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    stop: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
