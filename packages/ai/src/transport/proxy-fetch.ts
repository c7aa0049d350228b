// fetch for a whole process behind a proxy, for hosts whose libraries call the global fetch
// (Node 20's ignores HTTPS_PROXY): a request a proxy variable covers goes through nodeFetch (a
// CONNECT tunnel, or absolute form), everything else to `direct` unchanged.
import { nodeFetch } from "./node-fetch.js";
import { type Env, proxyFor } from "./proxy.js";

const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY"];

/** Whether any proxy variable is set (either case), i.e. whether proxyFetch would change anything. */
export function proxyConfigured(env: Env = process.env): boolean {
  return PROXY_VARIABLES.some((name) => (env[name] ?? env[name.toLowerCase()] ?? "").trim() !== "");
}

function urlOf(input: string | URL | Request): URL | undefined {
  const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  return URL.canParse(raw) ? new URL(raw) : undefined;
}

/**
 * A fetch that sends what HTTPS_PROXY / HTTP_PROXY cover (NO_PROXY aside) through the proxy, and
 * the rest to `direct`, reading the variables of `env` (process.env) at each request as nodeFetch does. A
 * body bound for the proxy is read first, since nodeFetch sends bytes; a proxy variable that is not
 * a usable URL fails the request as fetch fails (TypeError, the ProxyError as cause), never a
 * silent direct connection.
 */
export function proxyFetch(direct: typeof fetch, env: Env = process.env): typeof fetch {
  return async (input, init) => {
    const url = urlOf(input);
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return direct(input, init);
    try {
      if (proxyFor(url, env) === undefined) return direct(input, init);
    } catch (e) {
      throw new TypeError("fetch failed", { cause: e });
    }
    // A Request normalises every body fetch takes (and its content-type); nodeFetch sends bytes.
    const request = new Request(input, init);
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    return nodeFetch(
      url,
      {
        method: request.method,
        headers: request.headers,
        ...(body !== undefined ? { body } : {}),
        signal: request.signal,
        redirect: request.redirect,
      },
      env,
    );
  };
}
