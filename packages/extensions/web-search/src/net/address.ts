// Which IP addresses WebFetch may connect to: only public unicast ones, unless the user's
// allowlist names them. Judged on the address a name resolved to, never on the name.
import { createRequire } from "node:module";
import type ipaddrModule from "ipaddr.js";

type Ip = ipaddrModule.IPv4 | ipaddrModule.IPv6;
let loaded: typeof ipaddrModule | undefined;

/**
 * ipaddr.js is loaded by the first address judged (a WebFetch, a proxy decision), not with the
 * extension: nothing before the first model request needs it. The checks are synchronous, hence a
 * require: a bundler (the keel CLI) inlines the literal `require("ipaddr.js")` as a module
 * evaluated on that first call; as plain ESM, without `require`, Node's CommonJS loader does it.
 */
function ip(): typeof ipaddrModule {
  loaded ??= (
    typeof require === "function" ? require("ipaddr.js") : createRequire(import.meta.url)("ipaddr.js")
  ) as typeof ipaddrModule;
  return loaded;
}

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "carrier-grade-nat"
  | "unique-local"
  | "cloud-metadata"
  | "multicast"
  | "unspecified"
  | "reserved"
  | "invalid";

/** Addresses that are public by their range but answer as a cloud host's metadata service. */
const METADATA = new Set(["168.63.129.16"]);

const V4_CLASS: Record<string, AddressClass> = {
  unicast: "public",
  loopback: "loopback",
  private: "private",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade-nat",
  multicast: "multicast",
  broadcast: "reserved",
  unspecified: "unspecified",
};

const V6_CLASS: Record<string, AddressClass> = {
  unicast: "public",
  loopback: "loopback",
  linkLocal: "link-local",
  uniqueLocal: "unique-local",
  multicast: "multicast",
  unspecified: "unspecified",
};

/** Parses an address as DNS or the URL parser gives it (IPv6 with or without brackets). */
export function parseAddress(address: string): Ip | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  // Only canonical forms: `0x7f.1` and friends never come from a resolver or the URL parser.
  if (!ip().IPv4.isValidFourPartDecimal(bare) && !ip().IPv6.isValid(bare)) return undefined;
  try {
    return ip().parse(bare);
  } catch {
    return undefined;
  }
}

/** The IPv4 address an IPv6 address carries (mapped, translated, NAT64, 6to4), if any. */
function embeddedIPv4(address: ipaddrModule.IPv6): ipaddrModule.IPv4 | undefined {
  const range = address.range();
  const p = address.parts;
  const fromParts = (hi: number, lo: number) => new (ip().IPv4)([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052") return fromParts(p[6]!, p[7]!);
  if (range === "6to4") return fromParts(p[1]!, p[2]!);
  // ::a.b.c.d (IPv4-compatible, deprecated) still routes to a.b.c.d on some stacks.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6]! !== 0 || p[7]! > 1)) return fromParts(p[6]!, p[7]!);
  return undefined;
}

export function classifyAddress(address: string): AddressClass {
  const parsed = parseAddress(address);
  if (!parsed) return "invalid";
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddrModule.IPv6;
    const v4 = embeddedIPv4(v6);
    if (v4) return classifyAddress(v4.toString());
    return V6_CLASS[v6.range()] ?? "reserved";
  }
  const v4 = parsed as ipaddrModule.IPv4;
  if (METADATA.has(v4.toString())) return "cloud-metadata";
  const range = v4.range();
  if (range === "linkLocal" && v4.toString() === "169.254.169.254") return "cloud-metadata";
  return V4_CLASS[range] ?? "reserved";
}

export function describeClass(kind: AddressClass): string {
  switch (kind) {
    case "public":
      return "a public address";
    case "loopback":
      return "a loopback address (this machine)";
    case "private":
      return "a private network address";
    case "link-local":
      return "a link-local address";
    case "carrier-grade-nat":
      return "a carrier-grade NAT address (100.64.0.0/10)";
    case "unique-local":
      return "an IPv6 unique local address (fc00::/7)";
    case "cloud-metadata":
      return "a cloud metadata service address";
    case "multicast":
      return "a multicast address";
    case "unspecified":
      return "an unspecified address";
    case "reserved":
      return "a reserved address";
    case "invalid":
      return "not an IP address";
  }
}

/** A CIDR range or single address from the allowlist, or undefined when the entry is a host name. */
export function parseRange(entry: string): [Ip, number] | undefined {
  const bare = entry.replace(/^\[(.*)\](\/\d+)?$/, "$1$2");
  if (bare.includes("/")) {
    try {
      return ip().parseCIDR(bare);
    } catch {
      return undefined;
    }
  }
  const single = parseAddress(bare);
  if (!single) return undefined;
  return [single, single.kind() === "ipv4" ? 32 : 128];
}

export function inRange(address: string, range: [Ip, number]): boolean {
  let parsed = parseAddress(address);
  if (!parsed) return false;
  // An IPv4 range covers the same addresses written as IPv4-mapped IPv6, and the other way round.
  if (parsed.kind() === "ipv6" && range[0].kind() === "ipv4") {
    const v4 = embeddedIPv4(parsed as ipaddrModule.IPv6);
    if (!v4) return false;
    parsed = v4;
  } else if (parsed.kind() === "ipv4" && range[0].kind() === "ipv6") {
    parsed = (parsed as ipaddrModule.IPv4).toIPv4MappedAddress();
  }
  return parsed.match(range);
}
