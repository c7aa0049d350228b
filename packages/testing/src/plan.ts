// What a transport must do to answer one request: the engine decides, the socket server and
// the faux fetch both carry it out, so the two can never disagree on bytes.

export interface ResponsePlan {
  status: number;
  headers: Record<string, string>;
  /** Wait before sending the status and headers. */
  headerDelayMs: number;
  /** Body pieces in order (one SSE event each when streaming); `delayMs` is waited before each. */
  chunks: string[];
  delayMs: number;
  /**
   * After the last chunk: finish the body, cut the connection (a mid-stream disconnect), or say
   * nothing more until the client hangs up (a stalled stream).
   */
  ending: "end" | "disconnect" | "stall";
  /** Sent after `chunks`, over and over (each after `delayMs`), until the client hangs up. */
  loop?: string[];
}

export function jsonPlan(status: number, body: unknown, headers: Record<string, string> = {}): ResponsePlan {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    headerDelayMs: 0,
    chunks: [JSON.stringify(body)],
    delayMs: 0,
    ending: "end",
  };
}

/** Resolves when the signal aborts (never without one): a transport that has nothing more to say. */
export function silence(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Resolves after `ms` (at once for 0); rejects with the signal's reason if it aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
