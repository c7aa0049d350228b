// The private-network guard: resolves a host once, refuses it unless every address is public or
// allowlisted, and hands back the one address the connection must use (no second lookup, so no
// DNS-rebinding window between the check and the connection).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { err, ok, type Result } from "neverthrow";
import { classifyAddress, describeClass, inRange, parseRange } from "./address.js";
import { type NetError, netError } from "./errors.js";
import { hostMatches, isLocalhostName, normalizeHost } from "./hosts.js";

/** Resolves a host name to its addresses; DNS unless a test injects a stub. */
export type Resolver = (hostname: string, signal: AbortSignal) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardPolicy {
  /** Host names (`*.x` for subdomains), IP addresses and CIDR ranges the user lets WebFetch reach. */
  allow: readonly string[];
  /** Where the user changes the allowlist, for messages. */
  allowKey: string;
}

export interface CheckedTarget {
  /** The address to connect to; undefined for a host allowlisted by name (connect by name). */
  address?: string;
  /** The host is on the allowlist (by name, or every address by range). */
  allowlisted: boolean;
}

function nameAllowed(host: string, policy: GuardPolicy): boolean {
  return policy.allow.some((entry) => parseRange(entry) === undefined && hostMatches(entry, host));
}

function addressAllowed(address: string, policy: GuardPolicy): boolean {
  return policy.allow.some((entry) => {
    const range = parseRange(entry);
    return range !== undefined && inRange(address, range);
  });
}

function refusal(host: string, address: string, policy: GuardPolicy, url: URL): NetError {
  const kind = classifyAddress(address);
  const via = normalizeHost(host) === address ? "" : ` resolves to ${address}, which is`;
  return netError(
    "blocked_address",
    `refused: ${host}${via || " is"} ${describeClass(kind)}. WebFetch does not reach loopback, private, ` +
      `link-local or cloud metadata addresses; if you trust this host, add it to ${policy.allowKey}.`,
    { url: url.href },
  );
}

export async function checkTarget(
  url: URL,
  policy: GuardPolicy,
  resolver: Resolver,
  signal: AbortSignal,
): Promise<Result<CheckedTarget, NetError>> {
  const host = normalizeHost(url.hostname);
  if (nameAllowed(host, policy)) return ok({ allowlisted: true });
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (isLocalhostName(host)) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = await resolver(host, signal);
    } catch (error) {
      const code = (error as { code?: string }).code;
      return err(
        netError("dns", `${host} could not be resolved${code ? ` (${code})` : ""}; check the URL`, {
          url: url.href,
        }),
      );
    }
    if (addresses.length === 0) return err(netError("dns", `${host} has no addresses`, { url: url.href }));
  }
  // Every answer must pass: a name with one public and one private address is refused.
  for (const address of addresses) {
    if (addressAllowed(address, policy)) continue;
    if (classifyAddress(address) !== "public") return err(refusal(host, address, policy, url));
  }
  return ok({ address: addresses[0]!, allowlisted: addresses.every((a) => addressAllowed(a, policy)) });
}
