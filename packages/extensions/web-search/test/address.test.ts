// Address classes and allowlist ranges: pure functions, no network. (NO_PROXY is @keel/ai's.)
import { describe, expect, it } from "vitest";
import { classifyAddress, inRange, parseRange } from "../src/net/address.js";

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
