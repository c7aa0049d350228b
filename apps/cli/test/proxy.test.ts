// Requests through a proxy, as users behind a corporate proxy make them, through the built bin: a
// small local proxy (CONNECT tunnels and absolute-form http, every packet on loopback) carries
// the model requests to a TLS front of the mock with HTTPS_PROXY set, and the extensions'
// requests (the connector's GitHub calls, an MCP server over Streamable HTTP) with HTTP_PROXY;
// NO_PROXY sends each straight to 127.0.0.1.
import { readFileSync, writeFileSync } from "node:fs";
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI_ROOT, MODEL, mockSuite, runKeel, startKeel } from "./helpers.js";

const { fresh } = mockSuite();
const FIXTURES = join(CLI_ROOT, "../../packages/ai/test/fixtures");
const TOKEN = "ghp_proxyTestToken0123456789abcdefABCDEF";

/** What the proxy was asked: CONNECT authorities and absolute-form request lines. */
const seen: string[] = [];
const port = (s: Server) => (s.address() as AddressInfo).port;
let mockPort = 0;

const proxy = createHttpServer((req, res) => {
  seen.push(`${req.method} ${req.url}`);
  const target = new URL(req.url ?? "");
  const upstream = httpRequest(
    {
      host: "127.0.0.1",
      port: target.port,
      path: target.pathname + target.search,
      method: req.method,
      headers: req.headers,
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
});
proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
  seen.push(`CONNECT ${req.url}`);
  const upstream = connect({ host: "127.0.0.1", port: Number((req.url ?? "").split(":")[1]) }, () => {
    client.write("HTTP/1.1 200 Connection established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
});

/** The mock model server behind TLS (the test certificate, for localhost and 127.0.0.1). */
const tlsFront = createHttpsServer(
  {
    cert: readFileSync(join(FIXTURES, "localhost-cert.pem")),
    key: readFileSync(join(FIXTURES, "localhost-key.pem")),
  },
  (req, res) => {
    const upstream = httpRequest(
      { host: "127.0.0.1", port: mockPort, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  },
);

const github = createHttpServer((req, res) => {
  res.setHeader("content-type", "application/json");
  if (req.url === "/repos/acme/web/issues/1")
    return void res.end(
      JSON.stringify({
        number: 1,
        title: "Crash on start",
        state: "open",
        html_url: "https://x/1",
        body: "boom",
        user: { login: "octo" },
      }),
    );
  res.writeHead(404).end('{"message":"Not Found"}');
});

/** A Streamable HTTP MCP server answering with JSON (no SDK): what it was asked, by method. */
const mcpAsked: string[] = [];
const mcp = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
  if (req.method !== "POST") return void res.writeHead(405).end();
  let raw = "";
  req.setEncoding("utf8").on("data", (d: string) => (raw += d));
  req.on("end", () => {
    const message = JSON.parse(raw) as { id?: number; method: string; params?: { protocolVersion?: string } };
    mcpAsked.push(message.method);
    if (message.id === undefined) return void res.writeHead(202).end();
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "proxied", version: "1.0.0" },
          }
        : message.method === "tools/list"
          ? { tools: [{ name: "hello", description: "Say hello", inputSchema: { type: "object" } }] }
          : {};
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  });
});

const servers = [proxy, tlsFront, github, mcp];
beforeAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});
beforeEach(() => {
  seen.length = 0;
  mcpAsked.length = 0;
});

const proxyUrl = () => `http://127.0.0.1:${port(proxy)}`;
/** Every proxy variable of the parent removed, so only the test's own apply. */
const noInherited = {
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};

describe("model requests", () => {
  it("go through a CONNECT tunnel with HTTPS_PROXY set, and straight to the server when NO_PROXY covers it", async () => {
    const { server, ws } = fresh([{ text: "through the tunnel" }, { text: "direct" }]);
    mockPort = Number(new URL(server.anthropicBaseUrl).port);
    const base = {
      ...noInherited,
      ANTHROPIC_BASE_URL: `https://localhost:${port(tlsFront)}`,
      NODE_EXTRA_CA_CERTS: join(FIXTURES, "localhost-cert.pem"),
      HTTPS_PROXY: proxyUrl(),
    };
    const via = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo, "--no-extensions"], {
      server,
      ws,
      env: base,
    });
    expect(via).toMatchObject({ code: 0, stdout: "through the tunnel\n" });
    expect(seen).toEqual([`CONNECT localhost:${port(tlsFront)}`]);

    const direct = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo, "--no-extensions"], {
      server,
      ws,
      env: { ...base, NO_PROXY: "localhost" },
    });
    expect(direct).toMatchObject({ code: 0, stdout: "direct\n" });
    expect(seen).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });
});

describe("extensions' requests", () => {
  it("the connector's GitHub calls go through HTTP_PROXY, and direct when NO_PROXY covers GitHub", async () => {
    const steps = () => [
      {
        toolCalls: [
          {
            name: "ExecuteTool",
            arguments: { toolRef: "github:github__get_issue", arguments: { repo: "acme/web", number: 1 } },
          },
        ],
      },
      { text: "Done." },
    ];
    const { server, ws } = fresh([...steps(), ...steps()]);
    const githubUrl = `http://127.0.0.1:${port(github)}`;
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: { connector: { config: { connectors: { github: { baseUrl: githubUrl } } } } },
      }),
    );
    // The model server is reached directly throughout (NO_PROXY names its port).
    const modelHost = new URL(server.anthropicBaseUrl).host;
    const env = { ...noInherited, GITHUB_TOKEN: TOKEN, LINEAR_API_KEY: undefined, HTTP_PROXY: proxyUrl() };
    const via = await runKeel(["-p", "issue 1", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { ...env, NO_PROXY: modelHost },
    });
    expect(via.code).toBe(0);
    expect(seen).toEqual([`GET ${githubUrl}/repos/acme/web/issues/1`]);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("Crash on start");

    const direct = await runKeel(["-p", "issue 1", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { ...env, NO_PROXY: `${modelHost},127.0.0.1:${port(github)}` },
    });
    expect(direct.code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(server.requests[3]!.body.messages)).toContain("Crash on start");
  });

  it("an MCP server over Streamable HTTP is reached through HTTP_PROXY", async () => {
    // The model's answer waits, so keel is running while the MCP client connects; the test
    // waits for the server's tools/list, then stops keel.
    const { server, ws } = fresh([{ text: "late", headerDelayMs: 60_000 }]);
    const mcpUrl = `http://127.0.0.1:${port(mcp)}/mcp`;
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        extensions: { mcp: { config: { servers: { proxied: { type: "http", url: mcpUrl } } } } },
      }),
    );
    const running = startKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo, "--no-session"], {
      server,
      ws,
      env: { ...noInherited, HTTP_PROXY: proxyUrl(), NO_PROXY: new URL(server.anthropicBaseUrl).host },
    });
    const deadline = Date.now() + 30_000;
    while (!mcpAsked.includes("tools/list") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    running.child.kill("SIGTERM");
    const done = await running.done;
    expect(mcpAsked, done.stderr).toContain("tools/list");
    // initialize, initialized and tools/list (and the client's GET for a server stream), each
    // through the proxy.
    expect(seen.filter((l) => l === `POST ${mcpUrl}`).length).toBeGreaterThanOrEqual(3);
    expect(seen.every((l) => l.endsWith(` ${mcpUrl}`))).toBe(true);
  });
});
