// nodeFetch behind a proxy, as users behind a corporate proxy reach their providers: a small
// local proxy (CONNECT tunnels and absolute-form http) on 127.0.0.1, a TLS server with the test
// certificate, and clients in child processes (Node takes extra CAs only at start) with
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY set. The rules themselves are checked in-process.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bypassesProxy, ProxyError, proxyFor } from "../src/transport/proxy.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const CERT = join(FIXTURES, "localhost-cert.pem");
const TRANSPORT = join(import.meta.dirname, "..", "dist", "transport", "node-fetch.js");

/** What the proxy was asked: CONNECT authorities and absolute-form request lines. */
const seen: { kind: "connect" | "forward"; target: string; auth?: string }[] = [];
/** Requests the servers answered, by server. */
const served: { server: "tls" | "plain"; path: string; body: string }[] = [];
let refuseConnect = false;

const port = (s: Server) => (s.address() as AddressInfo).port;

function answer(server: "tls" | "plain") {
  return (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      served.push({ server, path: req.url ?? "", body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ server, body }));
    });
  };
}

const tls = createHttpsServer(
  { cert: readFileSync(CERT), key: readFileSync(join(FIXTURES, "localhost-key.pem")) },
  answer("tls"),
);
const plain = createHttpServer(answer("plain"));
const proxy = createHttpServer((req, res) => {
  // Absolute form: forward to the origin the request line names.
  seen.push({
    kind: "forward",
    target: `${req.method} ${req.url}`,
    auth: req.headers["proxy-authorization"],
  });
  const target = new URL(req.url ?? "");
  const { "proxy-authorization": _auth, ...headers } = req.headers;
  const upstream = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: req.method,
      headers,
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  req.pipe(upstream);
});
proxy.on("connect", (req, client: Socket, head: Buffer) => {
  seen.push({ kind: "connect", target: req.url ?? "", auth: req.headers["proxy-authorization"] });
  if (refuseConnect) {
    client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    return;
  }
  const [host, targetPort] = (req.url ?? "").split(":");
  // The test proxy reaches only this machine's servers: every packet stays on loopback.
  const upstream = connect(
    { host: host === "localhost" ? "127.0.0.1" : host, port: Number(targetPort) },
    () => {
      client.write("HTTP/1.1 200 Connection established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    },
  );
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
});

beforeAll(async () => {
  if (!existsSync(TRANSPORT)) throw new Error(`${TRANSPORT} is missing: run pnpm build in packages/ai first`);
  await Promise.all([tls, plain, proxy].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(async () => {
  await Promise.all([tls, plain, proxy].map((s) => new Promise<void>((r) => s.close(() => r()))));
});
beforeEach(() => {
  seen.length = 0;
  served.length = 0;
  refuseConnect = false;
});

/** Runs one nodeFetch in a child with `env`; resolves to its JSON answer or its failure. */
async function fetchInChild(url: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const source = `const { nodeFetch } = await import(${JSON.stringify(new URL(`file://${TRANSPORT}`).href)});
try {
  const res = await nodeFetch(${JSON.stringify(url)}, { method: "POST", body: "hello" });
  console.log(JSON.stringify({ status: res.status, body: await res.json() }));
} catch (e) {
  const c = e.cause;
  console.log(JSON.stringify({ failed: e.message, cause: c?.name, message: c?.message, proxy: c?.proxy, variable: c?.variable, status: c?.status }));
}`;
  const base = { ...process.env };
  for (const name of ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"])
    delete base[name];
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", source], {
    env: { ...base, NODE_EXTRA_CA_CERTS: CERT, ...env },
    timeout: 20_000,
  });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

describe("nodeFetch through a proxy", () => {
  it("tunnels https with CONNECT when HTTPS_PROXY is set, TLS checked against the server's name", async () => {
    const out = await fetchInChild(`https://localhost:${port(tls)}/v1/messages`, {
      HTTPS_PROXY: `http://127.0.0.1:${port(proxy)}`,
    });
    expect(out).toEqual({ status: 200, body: { server: "tls", body: "hello" } });
    expect(seen).toEqual([{ kind: "connect", target: `localhost:${port(tls)}` }]);
    expect(served).toEqual([{ server: "tls", path: "/v1/messages", body: "hello" }]);
  });

  it("goes straight to the server when NO_PROXY covers it", async () => {
    const https = await fetchInChild(`https://localhost:${port(tls)}/v1/messages`, {
      HTTPS_PROXY: `http://127.0.0.1:${port(proxy)}`,
      NO_PROXY: "example.com,localhost",
    });
    const http = await fetchInChild(`http://127.0.0.1:${port(plain)}/v1/chat`, {
      HTTP_PROXY: `http://127.0.0.1:${port(proxy)}`,
      NO_PROXY: "127.0.0.0/8",
    });
    expect([https.status, http.status]).toEqual([200, 200]);
    expect(seen).toEqual([]);
    expect(served.map((s) => s.server)).toEqual(["tls", "plain"]);
  });

  it("sends http in absolute form to HTTP_PROXY, with the credentials of the proxy URL", async () => {
    const out = await fetchInChild(`http://127.0.0.1:${port(plain)}/v1/chat?x=1`, {
      http_proxy: `http://keel:s%40cret@127.0.0.1:${port(proxy)}`,
    });
    expect(out).toEqual({ status: 200, body: { server: "plain", body: "hello" } });
    expect(seen).toEqual([
      {
        kind: "forward",
        target: `POST http://127.0.0.1:${port(plain)}/v1/chat?x=1`,
        auth: `Basic ${Buffer.from("keel:s@cret").toString("base64")}`,
      },
    ]);
  });

  it("fails like fetch, naming the proxy and its variable, when the proxy refuses or cannot be reached", async () => {
    refuseConnect = true;
    const refused = await fetchInChild(`https://localhost:${port(tls)}/v1/messages`, {
      HTTPS_PROXY: `http://127.0.0.1:${port(proxy)}`,
    });
    expect(refused).toEqual({
      failed: "fetch failed",
      cause: "ProxyError",
      message: `the proxy http://127.0.0.1:${port(proxy)} refused to tunnel to localhost:${port(tls)}: 403`,
      proxy: `http://127.0.0.1:${port(proxy)}`,
      variable: "HTTPS_PROXY",
      status: 403,
    });
    // A port nothing listens on: a closed server's.
    const gone = createHttpServer();
    await new Promise<void>((r) => gone.listen(0, "127.0.0.1", r));
    const deadPort = port(gone);
    await new Promise<void>((r) => gone.close(() => r()));
    for (const url of [`https://localhost:${port(tls)}/v1`, `http://127.0.0.1:${port(plain)}/v1`]) {
      const out = await fetchInChild(url, {
        HTTPS_PROXY: `http://127.0.0.1:${deadPort}`,
        HTTP_PROXY: `http://127.0.0.1:${deadPort}`,
      });
      expect(out).toMatchObject({
        failed: "fetch failed",
        cause: "ProxyError",
        proxy: `http://127.0.0.1:${deadPort}`,
        variable: url.startsWith("https") ? "HTTPS_PROXY" : "HTTP_PROXY",
      });
      expect(out.message).toContain("could not be reached: connect ECONNREFUSED");
    }
    expect(served).toEqual([]);
  });

  it("refuses a proxy variable that is not an http(s) URL instead of going direct", async () => {
    const out = await fetchInChild(`https://localhost:${port(tls)}/v1`, {
      HTTPS_PROXY: "socks5://127.0.0.1:1080",
    });
    expect(out).toMatchObject({ failed: "fetch failed", cause: "ProxyError", variable: "HTTPS_PROXY" });
    expect(out.message).toBe("HTTPS_PROXY uses socks5:; only http:// and https:// proxies are supported");
    expect(served).toEqual([]);
  });
});

describe("proxy rules", () => {
  const url = (u: string) => new URL(u);

  it("NO_PROXY matches names, subdomains, ports, IPs, CIDRs and *", () => {
    const covers = (target: string, noProxy: string) => bypassesProxy(url(target), noProxy);
    expect(covers("https://api.anthropic.com/v1", "anthropic.com")).toBe(true);
    expect(covers("https://api.anthropic.com/v1", ".anthropic.com")).toBe(true);
    expect(covers("https://api.anthropic.com/v1", "*.anthropic.com")).toBe(true);
    expect(covers("https://notanthropic.com/v1", "anthropic.com")).toBe(false);
    expect(covers("http://127.0.0.1:8080/v1", "127.0.0.1:8080")).toBe(true);
    expect(covers("http://127.0.0.1:8081/v1", "127.0.0.1:8080")).toBe(false);
    expect(covers("https://10.1.2.3/v1", "10.0.0.0/8")).toBe(true);
    expect(covers("https://11.1.2.3/v1", "10.0.0.0/8")).toBe(false);
    expect(covers("http://[::1]:11434/v1", "::1")).toBe(true);
    expect(covers("http://[::1]:11434/v1", "[::1]:11434")).toBe(true);
    expect(covers("https://api.openai.com/v1", " localhost , *")).toBe(true);
    expect(covers("https://api.openai.com/v1", "")).toBe(false);
  });

  it("reads the lower-case variable first, and only the one for the URL's scheme", () => {
    const env = { https_proxy: "http://low:1", HTTPS_PROXY: "http://up:2", HTTP_PROXY: "http://plain:3" };
    expect(proxyFor(url("https://api.openai.com/v1"), env)).toMatchObject({ variable: "HTTPS_PROXY" });
    expect(proxyFor(url("https://api.openai.com/v1"), env)?.url.host).toBe("low:1");
    expect(proxyFor(url("http://ollama.lan:11434/v1"), env)?.url.host).toBe("plain:3");
    expect(proxyFor(url("https://api.openai.com/v1"), { HTTP_PROXY: "http://plain:3" })).toBeUndefined();
    expect(proxyFor(url("https://api.openai.com/v1"), { HTTPS_PROXY: "proxy.corp:3128" })?.url.href).toBe(
      "http://proxy.corp:3128/",
    );
    expect(() => proxyFor(url("https://api.openai.com/v1"), { HTTPS_PROXY: "http://[bad" })).toThrow(
      ProxyError,
    );
  });
});
