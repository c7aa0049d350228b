// The network through the sandbox: with domains allowed, a command reaches them through Keel's
// proxy (plain requests and CONNECT tunnels) and nothing else — not another host, not the host's
// loopback directly. The resolver is a stub that answers 127.0.0.1 for every name, so every
// packet of this test stays on this machine.
import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostAllowed } from "../../src/sandbox/proxy.js";
import { type SandboxFixture, sandboxFixture } from "./fixture.js";

let upstream: Server;
let port = 0;
const paths: string[] = [];
const resolved: string[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    paths.push(req.url ?? "");
    res.end(`reached ${req.url}\n`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", () => resolve()));
  const address = upstream.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(() => upstream.close());

let fx: SandboxFixture | undefined;
afterEach(async () => {
  await fx?.dispose();
  fx = undefined;
  paths.length = 0;
  resolved.length = 0;
});

const stubLookup = async (host: string) => {
  resolved.push(host);
  return { address: "127.0.0.1", family: 4 };
};

describe("allowed domains", () => {
  it("matches names as WebFetch rules do", () => {
    const allowed = ["allowed.test", "*.ok.test"];
    expect(hostAllowed("allowed.test", allowed)).toBe(true);
    expect(hostAllowed("ALLOWED.test.", allowed)).toBe(true);
    expect(hostAllowed("a.ok.test", allowed)).toBe(true);
    expect(hostAllowed("ok.test", allowed)).toBe(false);
    expect(hostAllowed("allowed.test.evil", allowed)).toBe(false);
    expect(hostAllowed("127.0.0.1", allowed)).toBe(false);
  });

  it("reach an allowed host through the proxy, and nothing else", async () => {
    fx = sandboxFixture({ settings: { allowedDomains: ["allowed.test", "*.ok.test"] }, lookup: stubLookup });
    const curl = (extra: string, url: string) => `curl -s -m 5 ${extra} ${url}; echo " [$?]"`;
    const { text } = await fx.run(
      [
        curl("", `http://allowed.test:${port}/plain`),
        curl("--proxytunnel", `http://api.ok.test:${port}/tunnel`),
        curl("", `http://denied.test:${port}/denied`),
        curl("--proxytunnel", `http://denied.test:${port}/denied-tunnel`),
        curl("--noproxy '*'", `http://127.0.0.1:${port}/direct`),
        curl("--noproxy '*'", `http://allowed.test:${port}/direct-name`),
      ].join("\n"),
    );
    expect(paths.sort(), text).toEqual(["/plain", "/tunnel"]);
    expect(text).toContain("reached /plain");
    expect(text).toContain("reached /tunnel");
    expect(text).toContain("does not allow denied.test");
    // Refused names are never even resolved.
    expect(resolved.sort()).toEqual(["allowed.test", "api.ok.test"]);
  });

  it("plan mode has no network even when domains are allowed", async () => {
    fx = sandboxFixture({ settings: { allowedDomains: ["allowed.test"] }, lookup: stubLookup });
    fx.mode = "plan";
    await fx.run(
      `curl -s -m 3 http://allowed.test:${port}/plan; curl -s -m 3 http://127.0.0.1:${port}/plan-direct`,
    );
    expect(paths).toEqual([]);
    expect(resolved).toEqual([]);
  });

  it("without allowed domains no proxy runs and nothing is reached", async () => {
    fx = sandboxFixture({ lookup: stubLookup });
    const { text } = await fx.run(`echo "[$HTTP_PROXY]"; curl -s -m 3 http://127.0.0.1:${port}/none`);
    expect(text).toContain("[]");
    expect(paths).toEqual([]);
  });
});
