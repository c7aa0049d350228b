// The private-network guard: resolves a host once, refuses it unless every address is public or
// allowlisted, and hands back the one address the connection must use (no second lookup, so no
// DNS-rebinding window between the check and the connection).
import { isIP } from "node:net";
import { err, ok, type Result } from "neverthrow";
import { classifyAddress, describeClass, inRange, parseRange } from "./address.js";
import { type NetError, netError } from "./errors.js";
import { hostMatches, isLocalhostName, normalizeHost } from "./hosts.js";

/** Resolves a host name to its addresses; DNS unless a test injects a stub. */
export type Resolver = (hostname: string, signal: AbortSignal) => Promise<string[]>;

// node:dns/promises on the first fetch, not at the extension's activation.
export const systemResolver: Resolver = async (hostname) =>
  (await process.getBuiltinModule("node:dns/promises").lookup(hostname, { all: true, verbatim: true })).map(
    (a) => a.address,
  );

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

/**
 * A host the user allowlisted as written: by name, or an IP literal inside an allowlisted range.
 * Such a host is fetched as written (no https upgrade) and needs no separate permission rule.
 */
export function allowedAsWritten(hostname: string, policy: GuardPolicy): boolean {
  const host = normalizeHost(hostname);
  if (nameAllowed(host, policy)) return true;
  if (isIP(host) !== 0) return addressAllowed(host, policy);
  // localhost is 127.0.0.1 whatever a resolver says (checkTarget connects there), so allowing the address allows the name.
  return isLocalhostName(host) && addressAllowed(LOCALHOST, policy);
}

const LOCALHOST = "127.0.0.1";

/** This machine, known without DNS: a localhost name or a loopback IP literal. */
export function isLoopbackLiteral(hostname: string): boolean {
  const host = normalizeHost(hostname);
  return isLocalhostName(host) || (isIP(host) !== 0 && classifyAddress(host) === "loopback");
}

function refusal(host: string, address: string, policy: GuardPolicy, url: URL): NetError {
  const kind = classifyAddress(address);
  const via = normalizeHost(host) === address ? "" : ` resolves to ${address}, which is`;
  // The one setting that opens it, with the exact entry: the host as the URL names it.
  return netError(
    "blocked_address",
    `refused: ${host}${via || " is"} ${describeClass(kind)}. WebFetch does not reach loopback, private, ` +
      `link-local or cloud metadata addresses; if you trust this host, add "${normalizeHost(host)}" to ` +
      `${policy.allowKey} in your user config (that one setting lets WebFetch reach it).`,
    { url: url.href },
  );
}

/**
 * The refusal known before any lookup or approval: an IP literal or a localhost name that is not
 * public and not allowlisted. Names that need DNS are judged when the fetch runs.
 */
export function refusalWithoutLookup(url: URL, policy: GuardPolicy): NetError | undefined {
  const host = normalizeHost(url.hostname);
  if (allowedAsWritten(host, policy)) return undefined;
  const address = isIP(host) ? host : isLocalhostName(host) ? LOCALHOST : undefined;
  if (address === undefined || classifyAddress(address) === "public") return undefined;
  return refusal(host, address, policy, url);
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
  else if (isLocalhostName(host)) addresses = [LOCALHOST];
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
