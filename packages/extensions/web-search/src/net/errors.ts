// The failures a web request can end in: tagged, JSON-safe, each with a message that says what
// happened and what to do.

export type NetErrorType =
  | "invalid_url"
  | "blocked_address"
  | "dns"
  | "connect"
  | "proxy"
  | "tls"
  | "timeout"
  | "aborted"
  | "too_many_redirects"
  | "http_status"
  | "binary_content"
  | "protocol";

export interface NetError {
  type: NetErrorType;
  message: string;
  /** The HTTP status, for `http_status`. */
  status?: number;
  /** The URL the failure is about (a redirect target, for instance). */
  url?: string;
}

export const netError = (type: NetErrorType, message: string, extra: Partial<NetError> = {}): NetError => ({
  type,
  message,
  ...extra,
});

/** Node's socket and TLS error codes, put into words. */
export function describeSocketError(error: unknown, where: string): NetError {
  const code = (error as { code?: unknown })?.code;
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ECONNREFUSED":
      return netError("connect", `${where} refused the connection`);
    case "ECONNRESET":
    case "EPIPE":
      return netError("connect", `${where} closed the connection (${detail})`);
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return netError("connect", `${where} is unreachable from this machine`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return netError("dns", `${where}: the name could not be resolved`);
    default:
      if (typeof code === "string" && isTlsCode(code))
        return netError("tls", `${where}: ${tlsMessage(code)}`);
      return netError("connect", `${where}: ${detail}`);
  }
}

/** OpenSSL's own codes (`ERR_SSL_*`), Node's (`ERR_TLS_*`) and the certificate checks' (`*CERT*`). */
function isTlsCode(code: string): boolean {
  return (
    code.startsWith("ERR_SSL_") ||
    code.startsWith("ERR_TLS") ||
    code.includes("CERT") ||
    code.startsWith("UNABLE_TO_")
  );
}

// Said in words, by code; OpenSSL's own text ("error:0A00010B:SSL routines:…") helps nobody here.
const NOT_TLS = new Set([
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_PACKET_LENGTH_TOO_LONG",
  "ERR_SSL_HTTP_REQUEST",
  "ERR_SSL_RECORD_LAYER_FAILURE",
]);

function tlsMessage(code: string): string {
  if (NOT_TLS.has(code))
    return "the server does not speak https on this port (a plain http server?); try the http:// URL";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return "its certificate is for another host name";
  if (code === "CERT_HAS_EXPIRED") return "its certificate has expired";
  if (code.includes("CERT") || code.startsWith("UNABLE_TO_"))
    return `its certificate is not trusted here (${code})`;
  return `the secure (TLS) connection could not be set up (${code})`;
}
