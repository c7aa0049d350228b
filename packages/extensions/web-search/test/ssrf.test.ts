// The private-network guard with the default config (empty allowlist). "Public" hosts live in a
// fake internet: a resolver stub names their addresses and the dialer maps those addresses to
// local servers, so no test sends a packet anywhere but loopback — not even to prove a refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectVia, fakeInternet, type Local, startServer, stubResolver, TEST_CA } from "./helpers/net.js";
import { activated, text } from "./helpers/tools.js";

const PUBLIC = "93.184.215.14";
let local: Local; // a service on this machine that must never be reached
let web: Local; // "the internet", TLS, certificate for *.example.com
let plain: Local;

beforeAll(async () => {
  local = await startServer((_req, res) => res.end("admin panel: secrets"));
  web = await startServer(
    (req, res) => {
      if (req.url === "/to-loopback")
        return void res.writeHead(302, { location: `http://127.0.0.1:${local.port}/admin` }).end();
      if (req.url === "/to-metadata")
        return void res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      if (req.url === "/hop") return void res.writeHead(302, { location: "/after-hop" }).end();
      res.setHeader("content-type", "text/plain");
      res.end(`public page ${req.url} for ${req.headers.host}`);
    },
    { tls: true },
  );
  plain = await startServer((_req, res) => res.end("plain http"));
});
afterAll(async () => {
  for (const s of [local, web, plain]) await s.close();
});

function guarded(table: Record<string, string[]> = {}, allow?: string[]) {
  const net = fakeInternet({ [`${PUBLIC}:443`]: web.port, [`${PUBLIC}:80`]: plain.port });
  const dns = stubResolver({
    "news.example.com": [PUBLIC],
    "evil.example.com": ["127.0.0.1"],
    "intranet.example.com": ["10.20.30.40"],
    "mixed.example.com": [PUBLIC, "192.168.0.10"],
    "metadata.google.internal": ["169.254.169.254"],
    ...table,
  });
  const tools = activated(
    { network: { connect: connectVia(net.dial, {}), resolver: dns.resolver, ca: [TEST_CA] } },
    allow ? { fetch: { allow } } : {},
  );
  return { net, dns, tools };
}

describe("WebFetch refuses private and local targets by default", () => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:PORT/admin", "refused: 127.0.0.1 is a loopback address (this machine)."],
    [
      "http://localhost:PORT/admin",
      "refused: localhost resolves to 127.0.0.1, which is a loopback address (this machine).",
    ],
    ["http://[::1]:PORT/admin", "refused: ::1 is a loopback address (this machine)."],
    ["http://[::ffff:127.0.0.1]:PORT/", "refused: ::ffff:7f00:1 is a loopback address (this machine)."],
    [
      "http://169.254.169.254/latest/meta-data/iam/",
      "refused: 169.254.169.254 is a cloud metadata service address.",
    ],
    [
      "http://metadata.google.internal/computeMetadata/v1/",
      "refused: metadata.google.internal resolves to 169.254.169.254, which is a cloud metadata service address.",
    ],
    ["http://10.0.0.5/", "refused: 10.0.0.5 is a private network address."],
    ["https://192.168.1.1/", "refused: 192.168.1.1 is a private network address."],
    ["http://100.64.0.9/", "refused: 100.64.0.9 is a carrier-grade NAT address (100.64.0.0/10)."],
    ["http://[fd00:ec2::254]/", "refused: fd00:ec2::254 is an IPv6 unique local address (fc00::/7)."],
    ["http://0.0.0.0:PORT/", "refused: 0.0.0.0 is an unspecified address."],
    [
      "https://evil.example.com/",
      "refused: evil.example.com resolves to 127.0.0.1, which is a loopback address (this machine).",
    ],
    [
      "https://intranet.example.com/",
      "refused: intranet.example.com resolves to 10.20.30.40, which is a private network address.",
    ],
    [
      "https://mixed.example.com/",
      "refused: mixed.example.com resolves to 192.168.0.10, which is a private network address.",
    ],
  ];

  it.each(cases)("%s", async (raw, reason) => {
    const { net, tools } = guarded();
    const { run } = await tools;
    const result = await run("WebFetch", { url: raw.replace("PORT", String(local.port)) });
    expect(result.isError).toBe(true);
    // The hint names the one setting and the exact entry: the host as the URL names it.
    const host = reason.split(" ")[1];
    expect(text(result)).toBe(
      `WebFetch failed: ${reason} WebFetch does not reach loopback, private, link-local or cloud metadata addresses; ` +
        `if you trust this host, add "${host}" to extensions.web-search.config.fetch.allow in your user config ` +
        "(that one setting lets WebFetch reach it).",
    );
    expect(net.dials).toEqual([]);
    expect(local.requests).toHaveLength(0);
  });

  it("refuses a public page that redirects to 127.0.0.1, before any connection to it", async () => {
    const { net, tools } = guarded();
    const { run } = await tools;
    const result = await run("WebFetch", { url: "https://news.example.com/to-loopback" });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `WebFetch failed: https://news.example.com/to-loopback redirects to http://127.0.0.1:${local.port}/admin, and ` +
        "refused: 127.0.0.1 is a loopback address (this machine). WebFetch does not reach loopback, private, " +
        'link-local or cloud metadata addresses; if you trust this host, add "127.0.0.1" to ' +
        "extensions.web-search.config.fetch.allow in your user config (that one setting lets WebFetch reach it).",
    );
    expect(net.dials).toEqual([{ host: PUBLIC, port: 443 }]);
    expect(local.requests).toHaveLength(0);
    const metadata = await run("WebFetch", { url: "https://news.example.com/to-metadata" });
    expect(text(metadata)).toContain(
      "redirects to http://169.254.169.254/latest/meta-data/, and refused: 169.254.169.254 is a cloud metadata service address.",
    );
  });

  it("re-checks every redirect hop: a name that resolves somewhere else the second time is refused", async () => {
    let calls = 0;
    const { net, dns } = guarded();
    const rebinding = async (host: string) => {
      if (host !== "rebind.example.com") return dns.resolver(host);
      calls++;
      return calls === 1 ? [PUBLIC] : ["127.0.0.1"];
    };
    const { run } = await activated({
      network: { connect: connectVia(net.dial, {}), resolver: rebinding, ca: [TEST_CA] },
    });
    const result = await run("WebFetch", { url: "https://rebind.example.com/hop" });
    expect(text(result)).toContain(
      "refused: rebind.example.com resolves to 127.0.0.1, which is a loopback address",
    );
    expect(calls).toBe(2);
    expect(net.dials).toEqual([{ host: PUBLIC, port: 443 }]);
  });

  it("resolves once and connects to the address it checked, with the name for SNI, the certificate and Host", async () => {
    const { net, dns, tools } = guarded();
    const { run } = await tools;
    const result = await run("WebFetch", { url: "https://news.example.com/story" });
    expect(text(result)).toContain("public page /story for news.example.com");
    // The certificate names *.example.com, not the address: the TLS check used the host name.
    expect(dns.asked).toEqual(["news.example.com"]);
    expect(net.dials).toEqual([{ host: PUBLIC, port: 443 }]);
  });

  it("upgrades plain http to https for public hosts", async () => {
    const { net, tools } = guarded();
    const { run } = await tools;
    const out = text(await run("WebFetch", { url: "http://news.example.com/plain" }));
    expect(out).toContain("Fetched over https instead of plain http (http://news.example.com/plain).");
    expect(out).toContain("public page /plain for news.example.com");
    expect(net.dials).toEqual([{ host: PUBLIC, port: 443 }]);
    expect(plain.requests).toHaveLength(0);
  });

  it("lets the allowlist open exactly what it names", async () => {
    const { net, tools } = guarded({}, ["127.0.0.1", "*.corp.example.com"]);
    const { run } = await tools;
    // Allowlisted hosts keep plain http (local servers rarely have certificates).
    expect(text(await run("WebFetch", { url: `http://127.0.0.1:${local.port}/admin` }))).toContain(
      "admin panel",
    );
    expect(text(await run("WebFetch", { url: "http://10.0.0.5/" }))).toContain(
      "refused: 10.0.0.5 is a private network address.",
    );
    // A name that resolves into an allowlisted range is let through too (nothing listens on 443 here).
    expect(text(await run("WebFetch", { url: "https://evil.example.com/" }))).toContain(
      "refused the connection",
    );
    expect(net.dials).toEqual([
      { host: "127.0.0.1", port: local.port },
      { host: "127.0.0.1", port: 443 },
    ]);
  });

  it("never upgrades this machine to https: with 127.0.0.1 allowed, http://localhost is fetched as plain http", async () => {
    const { net, tools } = guarded({}, ["127.0.0.1"]);
    const { run } = await tools;
    const out = text(await run("WebFetch", { url: `http://localhost:${local.port}/admin` }));
    expect(out).toContain("admin panel");
    expect(out).not.toContain("Fetched over https");
    expect(net.dials).toEqual([{ host: "127.0.0.1", port: local.port }]);
  });

  it("says a TLS failure in words, not in OpenSSL's", async () => {
    const { tools } = guarded({}, ["127.0.0.1"]);
    const { run } = await tools;
    // A plain http server asked for https: the classic local mistake.
    const result = await run("WebFetch", { url: `https://127.0.0.1:${plain.port}/` });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `WebFetch failed: 127.0.0.1:${plain.port}: the server does not speak https on this port (a plain http server?); try the http:// URL`,
    );
  });
});
