// Host-name matching shared by the allowlist and NO_PROXY: lower case, no trailing dot,
// `*.x` (allowlist) or `.x` (NO_PROXY) for subdomains.

/** `Example.COM.` → `example.com`; IPv6 brackets are kept off. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  while (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/** `*.example.com` matches every subdomain of example.com but not example.com itself. */
export function hostMatches(pattern: string, host: string): boolean {
  const p = normalizeHost(pattern);
  const h = normalizeHost(host);
  if (p.startsWith("*.")) return h.endsWith(p.slice(1));
  return p === h;
}

/** RFC 6761: `localhost` and every name under it are this machine, whatever a resolver says. */
export function isLocalhostName(host: string): boolean {
  const h = normalizeHost(host);
  return h === "localhost" || h.endsWith(".localhost");
}
