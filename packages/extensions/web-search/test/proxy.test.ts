// Both tools behind a local HTTP proxy: WebFetch and SearXNG tunnel with CONNECT (WebFetch to the
// address it checked, so the proxy cannot be steered elsewhere by DNS), Tavily through the SDK's
// own proxy support; NO_PROXY sends requests straight to their host.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeTavily } from "./helpers/fake-tavily.js";
import {
  connectVia,
  fakeInternet,
  type Local,
  startProxy,
  startServer,
  stubResolver,
  TEST_CA,
} from "./helpers/net.js";
import { activated, text } from "./helpers/tools.js";

const PUBLIC = "93.184.215.14";
let web: Local;
let searx: Local;
let tavily: Awaited<ReturnType<typeof startFakeTavily>>;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  web = await startServer((req, res) => res.end(`page ${req.url} for ${req.headers.host}`), { tls: true });
  searx = await startServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ results: [{ url: "https://r.example/1", title: "R1", content: "c" }] }));
  });
  tavily = await startFakeTavily();
  proxy = await startProxy((authority) => {
    if (authority === `${PUBLIC}:443` || authority === "intranet.example.test:443")
      return { host: "127.0.0.1", port: web.port };
    if (authority === `searx.example.test:${searx.port}`) return { host: "127.0.0.1", port: searx.port };
    if (authority === `tavily.example.test:${tavily.port}`) return { host: "127.0.0.1", port: tavily.port };
    return undefined;
  });
});
afterAll(async () => {
  for (const s of [web, searx, tavily, proxy]) await s.close();
});
afterEach(() => {
  proxy.connects.length = 0;
  proxy.forwarded.length = 0;
});

function behindProxy(env: Record<string, string>, config: Record<string, unknown> = {}) {
  const net = fakeInternet({ [`${PUBLIC}:443`]: web.port });
  const dns = stubResolver({ "news.example.com": [PUBLIC] });
  return {
    net,
    tools: activated(
      { env: {}, network: { connect: connectVia(net.dial, env), resolver: dns.resolver, ca: [TEST_CA] } },
      config,
    ),
  };
}

describe("proxies", () => {
  it("WebFetch tunnels through HTTPS_PROXY to the checked address, TLS naming the host", async () => {
    const { net, tools } = behindProxy({ HTTPS_PROXY: proxy.url });
    const { run } = await tools;
    const out = text(await run("WebFetch", { url: "https://news.example.com/story" }));
    expect(out).toContain("page /story for news.example.com");
    expect(proxy.connects).toEqual([`${PUBLIC}:443`]);
    expect(net.dials).toEqual([{ host: "127.0.0.1", port: Number(new URL(proxy.url).port) }]);
  });

  it("goes straight to the host when NO_PROXY covers it", async () => {
    const { net, tools } = behindProxy({ HTTPS_PROXY: proxy.url, NO_PROXY: ".example.com" });
    const { run } = await tools;
    expect(text(await run("WebFetch", { url: "https://news.example.com/direct" }))).toContain("page /direct");
    expect(proxy.connects).toEqual([]);
    expect(net.dials).toEqual([{ host: PUBLIC, port: 443 }]);
  });

  it("still refuses private targets behind a proxy, and says when the proxy refuses", async () => {
    const { net, tools } = behindProxy({ HTTPS_PROXY: proxy.url }, { fetch: { allow: ["127.0.0.1"] } });
    const { run } = await tools;
    expect(text(await run("WebFetch", { url: "https://10.1.1.1/" }))).toContain(
      "refused: 10.1.1.1 is a private network address.",
    );
    expect(net.dials).toEqual([]);
    const refused = text(await run("WebFetch", { url: "https://127.0.0.1:9/" }));
    expect(refused).toBe(`WebFetch failed: the proxy ${proxy.url} refused to tunnel to 127.0.0.1:9: 403`);
  });

  it("tunnels by name to a host the user allowlisted by name", async () => {
    const { tools } = behindProxy(
      { HTTPS_PROXY: proxy.url },
      { fetch: { allow: ["intranet.example.test"] } },
    );
    const { run } = await tools;
    expect(text(await run("WebFetch", { url: "https://intranet.example.test/wiki" }))).toContain(
      "page /wiki for intranet.example.test",
    );
    expect(proxy.connects).toEqual(["intranet.example.test:443"]);
  });

  it("SearXNG goes through HTTP_PROXY too", async () => {
    const net = fakeInternet();
    const { run } = await activated(
      { env: {}, network: { connect: connectVia(net.dial, { HTTP_PROXY: proxy.url }) } },
      { search: { provider: "searxng", endpoint: `http://searx.example.test:${searx.port}` } },
    );
    expect(text(await run("WebSearch", { query: "q" }))).toContain("1. R1");
    expect(proxy.connects).toEqual([`searx.example.test:${searx.port}`]);
  });

  it("Tavily (through @tavily/core) honours HTTP_PROXY and NO_PROXY from the environment", async () => {
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      NO_PROXY: process.env.NO_PROXY,
      no_proxy: process.env.no_proxy,
    };
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = "127.0.0.1";
    process.env.no_proxy = "127.0.0.1";
    try {
      const viaProxy = await activated(
        { env: { TAVILY_API_KEY: "tvly-proxy-test" } },
        { search: { endpoint: `http://tavily.example.test:${tavily.port}` } },
      );
      expect(text(await viaProxy.run("WebSearch", { query: "through the proxy" }))).toContain(
        "Parsers 4.2 released",
      );
      expect(proxy.forwarded).toEqual([`http://tavily.example.test:${tavily.port}/search`]);
      expect(tavily.requests.at(-1)!.body.query).toBe("through the proxy");

      const direct = await activated(
        { env: { TAVILY_API_KEY: "tvly-proxy-test" } },
        { search: { endpoint: tavily.url } },
      );
      expect(text(await direct.run("WebSearch", { query: "straight" }))).toContain("Parsers 4.2 released");
      expect(proxy.forwarded).toHaveLength(1);
      expect(tavily.requests.at(-1)!.body.query).toBe("straight");
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});
