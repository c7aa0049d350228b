// Which proxy a request goes through, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl reads
// them (lower case first; `http_proxy` for http URLs, `https_proxy` for https ones).
import { err, ok, type Result } from "neverthrow";
import { inRange, parseRange } from "./address.js";
import { normalizeHost } from "./hosts.js";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyChoice {
  url: URL;
  /** `Basic …` from the proxy URL's user info, for Proxy-Authorization. */
  authorization?: string;
}

function envValue(env: Env, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** NO_PROXY: `*`, host names (a leading `.` or `*.` also covers subdomains), `host:port`, IPs, CIDRs. */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = normalizeHost(url.hostname);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    let name = entry;
    const portMatch = /^(.*[^:]):(\d+)$/.exec(entry);
    if (portMatch && !entry.startsWith("[") && (entry.match(/:/g) ?? []).length === 1) {
      if (portMatch[2] !== port) continue;
      name = portMatch[1]!;
    }
    const range = parseRange(name);
    if (range) {
      if (inRange(host, range)) return true;
      continue;
    }
    const domain = normalizeHost(name.replace(/^\*?\./, ""));
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/**
 * The proxy for `url`, undefined for a direct connection, or an error naming the variable when it
 * holds something that is not an http(s) proxy URL (never a silent direct connection instead).
 */
export function proxyFor(url: URL, env: Env): Result<ProxyChoice | undefined, string> {
  const name = url.protocol === "https:" ? "https_proxy" : "http_proxy";
  const raw = envValue(env, name);
  if (raw === undefined || bypassesProxy(url, envValue(env, "no_proxy"))) return ok(undefined);
  let proxy: URL;
  try {
    proxy = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    return err(`${name.toUpperCase()} is not a URL; expected http://host:port`);
  }
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:")
    return err(
      `${name.toUpperCase()} uses ${proxy.protocol}, but only http:// and https:// proxies are supported`,
    );
  const choice: ProxyChoice = { url: proxy };
  if (proxy.username !== "") {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    choice.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
  return ok(choice);
}

/** The proxy URL without its credentials, for messages. */
export function describeProxy(proxy: ProxyChoice): string {
  return `${proxy.url.protocol}//${proxy.url.host}`;
}
