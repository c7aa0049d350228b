// The network service extensions get as runtime.net: NO_PROXY as one implementation (including the
// forms @keel/ai and web-search used to read differently), and connectFor's connections — direct to
// a checked address, or a CONNECT tunnel to it — against a local proxy and server on 127.0.0.1.
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectFor, createNet } from "../src/transport/net.js";
import { bypassesProxy } from "../src/transport/proxy.js";

const covers = (target: string, noProxy: string) => bypassesProxy(new URL(target), noProxy);

describe("NO_PROXY", () => {
  it("reads names, subdomains, ports, IPs, CIDRs and * (web-search's former cases)", () => {
    const no = "localhost,.corp.example,api.example.com:8443,10.0.0.0/8,[::1]";
    expect(covers("http://localhost:3000/", no)).toBe(true);
    expect(covers("https://corp.example/", no)).toBe(true);
    expect(covers("https://wiki.corp.example/", no)).toBe(true);
    expect(covers("https://notcorp.example/", no)).toBe(false);
    expect(covers("https://api.example.com:8443/", no)).toBe(true);
    expect(covers("https://api.example.com/", no)).toBe(false);
    expect(covers("http://10.2.3.4/", no)).toBe(true);
    expect(covers("http://[::1]:8080/", no)).toBe(true);
    expect(covers("https://example.org/", "*")).toBe(true);
  });

  // Each of these was answered one way by @keel/ai and the other by web-search's copy.
  it("takes a port on a bracketed IPv6 entry (web-search ignored the entry)", () => {
    expect(covers("https://[::1]:8443/", "[::1]:8443")).toBe(true);
    expect(covers("https://[::1]/", "[::1]:443")).toBe(true);
    expect(covers("https://[::1]:8443/", "[::1]:443")).toBe(false);
  });

  it("treats an IPv4-mapped IPv6 address as its IPv4 host, both ways (@keel/ai did not)", () => {
    expect(covers("http://[::ffff:7f00:1]/", "127.0.0.1")).toBe(true);
    expect(covers("http://[::ffff:127.0.0.1]/", "127.0.0.0/8")).toBe(true);
    expect(covers("http://127.0.0.1/", "::ffff:127.0.0.1")).toBe(true);
    expect(covers("http://[::ffff:7f00:1]/", "10.0.0.0/8")).toBe(false);
  });

  it("takes a bracketed CIDR and any run of trailing dots (@keel/ai did not)", () => {
    expect(covers("http://[fd00::1]/", "[fd00::]/8")).toBe(true);
    expect(covers("http://[fe80::1]/", "[fd00::]/8")).toBe(false);
    expect(covers("http://example.com/", "example.com..")).toBe(true);
    expect(covers("http://example.com../", "example.com")).toBe(true);
  });

  it("ignores an entry whose prefix length is out of range instead of failing the request", () => {
    expect(covers("http://10.0.0.1/", "10.0.0.0/99,other.example")).toBe(false);
    expect(covers("http://other.example/", "10.0.0.0/99,other.example")).toBe(true);
  });
});

/** A CONNECT proxy that tunnels every authority to `upstream` and records what it was asked. */
let target: Server;
let proxy: Server;
const asked: string[] = [];
let refuse = false;
const portOf = (s: Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  target = createTcpServer((socket: Socket) => socket.end("hello from the target\n")) as unknown as Server;
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, client: Socket) => {
    asked.push(req.url ?? "");
    if (refuse) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = connect(portOf(target), "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
  });
  await Promise.all([
    new Promise<void>((r) => target.listen(0, "127.0.0.1", r)),
    new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r)),
  ]);
});
afterAll(async () => {
  await Promise.all([new Promise((r) => target.close(r)), new Promise((r) => proxy.close(r))]);
});
beforeEach(() => {
  asked.length = 0;
  refuse = false;
});

/** Maps the made-up public address to the local target; anything else not on loopback is refused. */
const dials: string[] = [];
const dial = ({ host, port }: { host: string; port: number }) => {
  dials.push(`${host}:${port}`);
  if (host === "93.184.215.14") return connect(portOf(target), "127.0.0.1");
  if (host === "127.0.0.1") return connect(port, host);
  throw new Error(`test dialer: not connecting to ${host}`);
};

async function firstLine(socket: Socket): Promise<string> {
  let text = "";
  for await (const chunk of socket) text += chunk;
  return text.split("\n")[0]!;
}

describe("connectFor", () => {
  const proxyEnv = () => ({ HTTPS_PROXY: `http://127.0.0.1:${portOf(proxy)}` });

  it("tunnels through HTTPS_PROXY to the checked address, not the name", async () => {
    const opened = await connectFor(
      "https://news.example.com/a",
      { address: "93.184.215.14" },
      {
        env: proxyEnv(),
        dial,
      },
    );
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.proxy).toBe(`http://127.0.0.1:${portOf(proxy)}`);
    expect(await firstLine(opened.socket)).toBe("hello from the target");
    expect(asked).toEqual(["93.184.215.14:443"]);
  });

  it("goes straight to the address when NO_PROXY covers the URL's host", async () => {
    dials.length = 0;
    const opened = await connectFor(
      "https://news.example.com/a",
      { address: "93.184.215.14" },
      {
        env: { ...proxyEnv(), NO_PROXY: ".example.com" },
        dial,
      },
    );
    if (!opened.ok) throw new Error(opened.error.message);
    expect(await firstLine(opened.socket)).toBe("hello from the target");
    expect(asked).toEqual([]);
    expect(dials).toEqual(["93.184.215.14:443"]);
  });

  it("returns a refused tunnel and a bad proxy variable as values, never a direct connection", async () => {
    refuse = true;
    const refused = await connectFor(
      "https://x.example/",
      { address: "93.184.215.14" },
      { env: proxyEnv(), dial },
    );
    expect(refused).toMatchObject({ ok: false, error: { type: "proxy", status: 403 } });
    expect(refused.ok ? "" : refused.error.message).toContain("refused to tunnel to 93.184.215.14:443: 403");
    dials.length = 0;
    const bad = await connectFor("https://x.example/", {}, { env: { HTTPS_PROXY: "socks5://p:1" }, dial });
    expect(bad).toMatchObject({ ok: false, error: { type: "proxy" } });
    expect(dials).toEqual([]);
  });

  it("reports a refused direct connection with its errno code, and stops on abort", async () => {
    const closed = createTcpServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await connectFor(`http://127.0.0.1:${port}/`, {}, { env: {} });
    expect(refused).toMatchObject({ ok: false, error: { type: "connect", code: "ECONNREFUSED" } });
    const controller = new AbortController();
    controller.abort();
    const stopped = await connectFor(
      "https://x.example/",
      { signal: controller.signal },
      { env: proxyEnv(), dial },
    );
    expect(stopped).toMatchObject({ ok: false, error: { type: "aborted" } });
  });

  it("createNet's fetch sends what a proxy covers through it, and fails a bad variable like fetch", async () => {
    const web = createServer((_req, res) => res.end("direct"));
    await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${portOf(web)}/`;
      const direct = createNet({ env: { HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1" } });
      expect(await (await direct.fetch(url)).text()).toBe("direct");
      const broken = createNet({ env: { HTTP_PROXY: "socks5://p:1" } });
      await expect(broken.fetch(url)).rejects.toThrow(TypeError);
    } finally {
      await new Promise((r) => web.close(r));
    }
  });
});
