// The one setting that opens a local or private host to WebFetch: `fetch.allow` in the user's
// config. A host on it is fetched as written and needs no permission rule of its own (the
// extension grants `WebFetch(domain:host)` for the run); one off it that is known local without DNS
// (localhost, 127.0.0.1, 10.0.0.5) is refused before anyone is asked, naming that setting.
import { allowedAsWritten, type GuardPolicy, refusalWithoutLookup } from "../net/guard.js";
import { normalizeHost } from "../net/hosts.js";

function parsed(raw: unknown): URL | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    return new URL(raw.trim());
  } catch {
    return undefined;
  }
}

/** Why this fetch is refused before it is asked about, or undefined: the shape of the SDK's tool `precondition`. */
export function refusedBeforeAsking(url: unknown, policy: GuardPolicy): string | undefined {
  const target = parsed(url);
  if (!target || (target.protocol !== "http:" && target.protocol !== "https:")) return undefined;
  const refused = refusalWithoutLookup(target, policy);
  return refused ? `WebFetch failed: ${refused.message}` : undefined;
}

/** The host whose fetches the allowlist already permits, if this URL names one. */
export function allowlistedHost(url: unknown, policy: GuardPolicy): string | undefined {
  const target = parsed(url);
  if (!target || !allowedAsWritten(target.hostname, policy)) return undefined;
  return normalizeHost(target.hostname);
}
