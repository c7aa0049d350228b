// The in-process transport: a `fetch` that runs the same scenario engine as the server and
// answers with a streamed Response, for SDK tests that need no socket.
import { ScenarioEngine } from "./engine.js";
import { pause, type ResponsePlan, silence } from "./plan.js";
import type { RecordedListing, RecordedRequest, Scenario } from "./scenario.js";

export interface FauxFetch {
  /** Pass as the SDKs' `fetch` option; any origin is accepted, routing is by path. */
  fetch: typeof fetch;
  requests: RecordedRequest[];
  /** Every GET /v1/models received. */
  listings: RecordedListing[];
  setScenario(scenario: Scenario): void;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function body(plan: ResponsePlan, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!signal) return;
      onAbort = () => {
        try {
          controller.error(abortError(signal));
        } catch {
          // Already closed or errored: nothing left to abort.
        }
      };
      signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      const loop = plan.loop ?? [];
      const chunk =
        next < plan.chunks.length || loop.length === 0
          ? plan.chunks[next]
          : loop[(next - plan.chunks.length) % loop.length];
      if (chunk === undefined) {
        // A stalled stream: nothing more, until the reader gives up (its abort errors the body).
        if (plan.ending === "stall") return silence(signal);
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        // undici reports a peer that hangs up mid-body as TypeError("terminated"); mirror it.
        if (plan.ending === "disconnect") controller.error(new TypeError("terminated"));
        else controller.close();
        return;
      }
      next++;
      await pause(plan.delayMs, signal).catch(() => undefined);
      if (signal?.aborted) return;
      controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    },
  });
}

export function createFauxFetch(scenario?: Scenario): FauxFetch {
  const engine = new ScenarioEngine(scenario);
  const fauxFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw abortError(signal);
    const raw = await request.text();
    const url = new URL(request.url);
    const plan = engine.handle({
      method: request.method,
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      raw,
    });
    await pause(plan.headerDelayMs, signal);
    return new Response(body(plan, signal), { status: plan.status, headers: plan.headers });
  };
  return {
    fetch: fauxFetch as typeof fetch,
    requests: engine.requests,
    listings: engine.listings,
    setScenario: (next) => engine.setScenario(next),
  };
}
