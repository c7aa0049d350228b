// HTTP and connection failures as typed values, and what to tell the user about each: adapters
// classify what their SDK threw with httpReason / networkCause (codes and error classes, never
// message text), and the driver explains the result once, naming the endpoint and what to check.
import { baseUrlSource } from "./providers/base-url.js";
import { ProxyError } from "./transport/proxy.js";
import type { AiError, HttpErrorReason, Model, NetworkErrorReason } from "./types.js";

export function httpReason(status: number): HttpErrorReason {
  if (status === 401) return "auth";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status === 409) return "conflict";
  if (status === 413) return "too_large";
  if (status === 429) return "rate_limit";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 500) return "server";
  if (status >= 400) return "bad_request";
  return "other";
}

const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

function reasonOfCode(code: string): NetworkErrorReason | undefined {
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT")
    return "timeout";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "ECONNABORTED")
    return "reset";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "unreachable";
  if (TLS_CODE.test(code)) return "tls";
  // undici's other socket errors (closed, aborted by the server) all mean the connection went.
  if (code.startsWith("UND_ERR")) return "reset";
  return undefined;
}

export interface NetworkCause {
  reason: NetworkErrorReason;
  /** The socket or TLS error code (`ECONNREFUSED`, `CERT_HAS_EXPIRED`). */
  code?: string;
  /** Set when the proxy was what failed: its URL without credentials, and its variable. */
  proxy?: string;
  proxyVariable?: string;
  /** The innermost error's own words (`connect ECONNREFUSED 127.0.0.1:9`). */
  detail?: string;
}

/**
 * Why a connection failed, read from the error chain an SDK's connection error carries (fetch's
 * TypeError, the socket or TLS error under it, or the transport's ProxyError); undefined when
 * the chain holds no connection failure.
 */
export function networkCause(error: unknown): NetworkCause | undefined {
  let terminated = false;
  for (let cur: unknown = error, depth = 0; cur && depth < 6; depth++) {
    if (cur instanceof ProxyError) {
      const under = networkCause(cur.cause);
      return {
        reason: "proxy",
        proxy: cur.proxy,
        proxyVariable: cur.variable,
        detail: cur.message,
        ...(under?.code ? { code: under.code } : {}),
      };
    }
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string") {
      const reason = reasonOfCode(code);
      if (reason) return { reason, code, ...(cur instanceof Error ? { detail: cur.message } : {}) };
    }
    // fetch's own words for a body cut mid-read, with or without a socket error under it.
    if (cur instanceof TypeError && cur.message === "terminated") terminated = true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return terminated ? { reason: "reset" } : undefined;
}

/** The network AiError for a cause, with the adapter's wording when the chain has none of its own. */
export function networkError(cause: NetworkCause | undefined, fallback: string): AiError {
  const { detail, ...fields } = cause ?? { reason: "other" as const };
  return { type: "network", ...fields, message: detail ?? fallback };
}

/** Where a failed request went and what the user may have to check, for the explanation. */
export interface FailureContext {
  model: Model;
  /** The URL the request went to (base URL and the API's path), or undefined if unknown. */
  endpoint?: string;
  /** The key came from the caller (`apiKey`), not from the model's variable. */
  keyGiven: boolean;
}

function keySetting({ model, keyGiven }: FailureContext): string {
  if (keyGiven) return "the API key Keel was given";
  return model.apiKeyEnv
    ? model.apiKeyEnv
    : `the key of provider ${model.provider} (apiKeyEnv in its config)`;
}

function baseUrlSetting(model: Model): string {
  const source = baseUrlSource(model);
  if (source.from === "env") return `${source.env} (${source.url})`;
  if (source.from === "model") return `providers.${model.provider}.baseUrl in config (${source.url})`;
  return `${source.url} (the default; ${source.env} or providers.${model.provider}.baseUrl in config changes it)`;
}

const hostOf = (endpoint: string | undefined) =>
  endpoint && URL.canParse(endpoint) ? new URL(endpoint).hostname : "the host";

/** For a failure that did not go through a proxy: the proxy variable, should one be needed. */
function proxyAdvice(endpoint: string | undefined): string {
  const https = !endpoint || endpoint.startsWith("https:");
  return `${https ? "HTTPS_PROXY" : "HTTP_PROXY"} if this network needs a proxy to reach it`;
}

function hintFor(error: AiError, ctx: FailureContext): string | undefined {
  const { model } = ctx;
  if (error.type === "http") {
    switch (error.reason) {
      case "auth":
        return `Check ${keySetting(ctx)}: it must hold a valid key for this endpoint.`;
      case "forbidden":
        return `Check that the key in ${keySetting(ctx)} may use model ${model.id} (--model ${model.provider}/${model.id}), and that the endpoint is the one you meant.`;
      case "not_found":
        return `Check the model id "${model.id}" (keel models lists what your key can use) and the base URL, ${baseUrlSetting(model)}.`;
      case "rate_limit":
        return "The provider is limiting this key's requests: wait, or check the rate limits of its plan.";
      case "overloaded":
      case "server":
        return "The provider failed on its side: try again later (its status page says whether it is down).";
      case "timeout":
        return "The server gave up waiting: try again; a smaller request helps.";
      case "too_large":
        return "The request is larger than the server accepts: compact the session (/compact) or send less.";
      default:
        return undefined;
    }
  }
  if (error.type === "network") {
    switch (error.reason) {
      case "proxy":
        return `Check ${error.proxyVariable ?? "the proxy variable"} (is the proxy running, and does it let ${hostOf(ctx.endpoint)} through?), or add ${hostOf(ctx.endpoint)} to NO_PROXY to reach it directly.`;
      case "refused":
      case "unreachable":
      case "timeout":
        return `Check the base URL, ${baseUrlSetting(model)}, and ${proxyAdvice(ctx.endpoint)}.`;
      case "dns":
        return `Check the host name in the base URL, ${baseUrlSetting(model)}, your network's DNS, and ${proxyAdvice(ctx.endpoint)}.`;
      case "tls":
        return "The server's certificate is not trusted: if a proxy or a private CA signs it, point NODE_EXTRA_CA_CERTS at that CA's certificate file.";
      default:
        return undefined;
    }
  }
  return undefined;
}

const REACH: Partial<Record<NetworkErrorReason, string>> = {
  refused: "the connection was refused",
  unreachable: "the host is unreachable",
  dns: "the host name did not resolve",
  timeout: "the connection timed out",
  tls: "the TLS handshake failed",
};

/**
 * The message a user reads for an HTTP or connection failure: what happened, where (the
 * endpoint, and the proxy if it was one), and what to check. Other errors pass unchanged. An
 * adapter's own message (the server's words, the socket error) is kept after the summary.
 */
export function explainFailure(error: AiError, ctx: FailureContext): AiError {
  if (error.type !== "http" && error.type !== "network") return error;
  const at = ctx.endpoint ? ` at ${ctx.endpoint}` : "";
  const where = `${ctx.model.provider}${at}`;
  const hint = hintFor(error, ctx);
  const detail = error.message.trim().replace(/[.\s]+$/, "");
  const tail = detail ? `: ${detail}` : "";
  let summary: string;
  if (error.type === "http") {
    summary = error.inStream
      ? `${ctx.model.provider} reported an error (${error.status}) mid-stream${at}${tail}`
      : `${ctx.model.provider} answered ${error.status}${at}${tail}`;
  } else {
    const reach = REACH[error.reason];
    const code = error.code && !detail.includes(error.code) ? ` (${error.code})` : "";
    if (reach) summary = `Could not reach ${where}: ${reach}${code}${detail ? ` (${detail})` : ""}`;
    else if (error.reason === "proxy") summary = `Could not reach ${where} through the proxy${tail}`;
    else if (error.reason === "idle") summary = `${detail || "The stream went silent"} (${where})`;
    else if (error.reason === "reset") summary = `The connection to ${where} dropped${code}${tail}`;
    else summary = `The connection to ${where} failed${code}${tail}`;
  }
  const message = `${summary}.${hint ? ` ${hint}` : ""}`;
  return {
    ...error,
    message,
    ...(ctx.endpoint ? { endpoint: ctx.endpoint } : {}),
    ...(hint ? { hint } : {}),
  };
}
