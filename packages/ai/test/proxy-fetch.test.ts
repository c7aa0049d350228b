// proxyFetch, the fetch a host installs for libraries that call the global one: what a proxy
// variable covers goes through the proxy (a small absolute-form proxy on 127.0.0.1), bodies of
// every kind included; the rest goes to the fetch it wraps; a bad variable fails, never direct.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { proxyConfigured, proxyFetch } from "../src/transport/proxy-fetch.js";

const seen: string[] = [];
const served: { method: string; body: string; type: string | undefined }[] = [];
const origin = createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8").on("data", (d: string) => (body += d));
  req.on("end", () => {
    served.push({ method: req.method ?? "", body, type: req.headers["content-type"] });
    res.end("answered");
  });
});
const proxy = createServer((req, res) => {
  seen.push(`${req.method} ${req.url}`);
  const target = new URL(req.url ?? "");
  const up = httpRequest(
    { host: "127.0.0.1", port: target.port, path: target.pathname, method: req.method, headers: req.headers },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  req.pipe(up);
});
const port = (s: Server) => (s.address() as AddressInfo).port;
const NAMES = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"];
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));

beforeAll(async () => {
  await Promise.all([origin, proxy].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(async () => {
  await Promise.all([origin, proxy].map((s) => new Promise<void>((r) => s.close(() => r()))));
});
afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
  seen.length = 0;
  served.length = 0;
});

function withProxy(env: Record<string, string>): void {
  for (const n of NAMES) delete process.env[n];
  Object.assign(process.env, env);
}

describe("proxyFetch", () => {
  it("sends a URL, a Request and a streamed body through HTTP_PROXY, content types kept", async () => {
    withProxy({ HTTP_PROXY: `http://127.0.0.1:${port(proxy)}` });
    const direct = async () => {
      throw new Error("went direct");
    };
    const f = proxyFetch(direct as typeof fetch);
    const url = `http://127.0.0.1:${port(origin)}/a`;
    expect(await (await f(url, { method: "POST", body: "one" })).text()).toBe("answered");
    await f(new Request(url, { method: "POST", body: new URLSearchParams({ q: "two" }) }));
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("three"));
        c.close();
      },
    });
    await f(url, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(seen).toEqual([`POST ${url}`, `POST ${url}`, `POST ${url}`]);
    expect(served.map((s) => s.body)).toEqual(["one", "q=two", "three"]);
    expect(served[1]!.type).toContain("application/x-www-form-urlencoded");
  });

  it("hands what no proxy covers to the fetch it wraps", async () => {
    withProxy({ HTTP_PROXY: `http://127.0.0.1:${port(proxy)}`, NO_PROXY: "127.0.0.1" });
    const calls: string[] = [];
    const f = proxyFetch((async (input: string | URL | Request) => {
      calls.push(String(input));
      return new Response("direct");
    }) as typeof fetch);
    expect(await (await f(`http://127.0.0.1:${port(origin)}/b`)).text()).toBe("direct");
    expect(await (await f("data:text/plain,x")).text()).toBe("direct");
    expect(calls).toHaveLength(2);
    expect(seen).toEqual([]);
  });

  it("fails as fetch fails for a proxy variable that is not a URL, without going direct", async () => {
    withProxy({ HTTP_PROXY: "socks5://127.0.0.1:1080" });
    const f = proxyFetch((async () => new Response("direct")) as typeof fetch);
    const failure = await f(`http://127.0.0.1:${port(origin)}/c`).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).cause).toMatchObject({ name: "ProxyError", variable: "HTTP_PROXY" });
    expect(served).toEqual([]);
  });

  it("proxyConfigured sees either case of either variable", () => {
    expect(proxyConfigured({})).toBe(false);
    expect(proxyConfigured({ https_proxy: "http://p:1" })).toBe(true);
    expect(proxyConfigured({ HTTP_PROXY: "http://p:1" })).toBe(true);
    expect(proxyConfigured({ NO_PROXY: "*" })).toBe(false);
  });
});
