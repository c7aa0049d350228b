// Address classes, allowlist ranges and NO_PROXY rules: pure functions, no network.
import { describe, expect, it } from "vitest";
import { classifyAddress, inRange, parseRange } from "../src/net/address.js";
import { bypassesProxy, proxyFor } from "../src/net/proxy.js";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.1", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade-nat"],
    ["100.100.100.200", "carrier-grade-nat"],
    ["169.254.169.254", "cloud-metadata"],
    ["168.63.129.16", "cloud-metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd00:ec2::254", "unique-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.10", "reserved"],
    ["240.0.0.1", "reserved"],
    // IPv4 inside IPv6: judged as the IPv4 address they carry.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "cloud-metadata"],
    ["64:ff9b::a00:1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["93.184.215.14", "public"],
    ["8.8.8.8", "public"],
    ["2606:4700::6810:84e5", "public"],
    ["64:ff9b::808:808", "public"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("does not accept shorthand forms no resolver returns", () => {
    expect(classifyAddress("0x7f.1")).toBe("invalid");
    expect(classifyAddress("2130706433")).toBe("invalid");
    expect(classifyAddress("example.com")).toBe("invalid");
  });
});

describe("allowlist ranges", () => {
  it("matches single addresses and CIDR ranges, IPv4 and mapped IPv6 alike", () => {
    expect(inRange("127.0.0.1", parseRange("127.0.0.1")!)).toBe(true);
    expect(inRange("127.0.0.2", parseRange("127.0.0.1")!)).toBe(false);
    expect(inRange("10.9.8.7", parseRange("10.0.0.0/8")!)).toBe(true);
    expect(inRange("::ffff:10.9.8.7", parseRange("10.0.0.0/8")!)).toBe(true);
    expect(inRange("::1", parseRange("[::1]")!)).toBe(true);
    expect(inRange("fd12::1", parseRange("fc00::/7")!)).toBe(true);
    expect(parseRange("intranet.example")).toBeUndefined();
  });
});

describe("proxy variables", () => {
  const url = (u: string) => new URL(u);

  it("picks https_proxy for https and http_proxy for http, lower case first", () => {
    const env = {
      HTTPS_PROXY: "http://upper:1",
      https_proxy: "http://lower:2",
      HTTP_PROXY: "http://plain:3",
    };
    expect(proxyFor(url("https://example.com/"), env)._unsafeUnwrap()?.url.host).toBe("lower:2");
    expect(proxyFor(url("http://example.com/"), env)._unsafeUnwrap()?.url.host).toBe("plain:3");
    expect(proxyFor(url("https://example.com/"), {})._unsafeUnwrap()).toBeUndefined();
  });

  it("turns user info into Proxy-Authorization and refuses what is not an http(s) proxy", () => {
    const choice = proxyFor(url("https://example.com/"), {
      HTTPS_PROXY: "http://me:s%40cret@proxy:8080",
    })._unsafeUnwrap();
    expect(choice?.authorization).toBe(`Basic ${Buffer.from("me:s@cret").toString("base64")}`);
    expect(
      proxyFor(url("https://example.com/"), { HTTPS_PROXY: "socks5://proxy:1080" })._unsafeUnwrapErr(),
    ).toContain("only http:// and https:// proxies");
  });

  it("honours NO_PROXY: names and their subdomains, ports, IPs, CIDRs and *", () => {
    const no = "localhost,.corp.example,api.example.com:8443,10.0.0.0/8,[::1]";
    expect(bypassesProxy(url("http://localhost:3000/"), no)).toBe(true);
    expect(bypassesProxy(url("https://corp.example/"), no)).toBe(true);
    expect(bypassesProxy(url("https://wiki.corp.example/"), no)).toBe(true);
    expect(bypassesProxy(url("https://notcorp.example/"), no)).toBe(false);
    expect(bypassesProxy(url("https://api.example.com:8443/"), no)).toBe(true);
    expect(bypassesProxy(url("https://api.example.com/"), no)).toBe(false);
    expect(bypassesProxy(url("http://10.2.3.4/"), no)).toBe(true);
    expect(bypassesProxy(url("http://[::1]:8080/"), no)).toBe(true);
    expect(bypassesProxy(url("https://example.org/"), "*")).toBe(true);
    const env = { HTTPS_PROXY: "http://proxy:3128", NO_PROXY: no };
    expect(proxyFor(url("https://wiki.corp.example/"), env)._unsafeUnwrap()).toBeUndefined();
    expect(proxyFor(url("https://example.org/"), env)._unsafeUnwrap()?.url.host).toBe("proxy:3128");
  });
});
