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
      if (typeof code === "string" && (code.startsWith("ERR_TLS") || code.includes("CERT")))
        return netError("tls", `${where}: the TLS handshake failed (${code}: ${detail})`);
      return netError("connect", `${where}: ${detail}`);
  }
}
