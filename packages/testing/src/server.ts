// The socket transport: an HTTP server on 127.0.0.1 that runs the scenario engine and writes
// its plans to the wire, plus a small control plane (/__keel/…) for tests in other processes.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ScenarioEngine } from "./engine.js";
import { pause, type ResponsePlan, silence } from "./plan.js";
import type { RecordedListing, RecordedRequest, Scenario } from "./scenario.js";
import { checkScenario } from "./validate.js";

export interface MockServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** baseURL for @anthropic-ai/sdk (it appends /v1/messages itself). */
  anthropicBaseUrl: string;
  /** baseURL for openai: url + "/v1". */
  openaiBaseUrl: string;
  /** Every model request received, in order (live array). */
  requests: RecordedRequest[];
  /** Every GET /v1/models received, in order (live array). */
  listings: RecordedListing[];
  /** Replaces the scenario and rewinds it; recorded requests are kept. */
  setScenario(scenario: Scenario): void;
  /** Stops listening and cuts open connections. */
  close(): Promise<void>;
}

export interface MockServerOptions {
  /** Default 0: any free port. */
  port?: number;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function send(plan: ResponsePlan, res: ServerResponse): Promise<void> {
  // A client that hangs up cancels the pending delays instead of leaving timers behind.
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  try {
    await write(plan, res, gone.signal);
  } catch (error) {
    if (!gone.signal.aborted) throw error;
  }
}

async function write(plan: ResponsePlan, res: ServerResponse, gone: AbortSignal): Promise<void> {
  await pause(plan.headerDelayMs, gone);
  const single = plan.ending === "end" && plan.chunks.length === 1 && plan.delayMs === 0;
  if (single) {
    const body = plan.chunks[0] ?? "";
    res.writeHead(plan.status, { ...plan.headers, "content-length": Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(plan.status, plan.headers);
  res.flushHeaders();
  let failed = false;
  const send = async (chunk: string) => {
    await pause(plan.delayMs, gone);
    // Waiting for each write to drain keeps events in separate TCP reads when delays are set.
    await new Promise<void>((resolve) =>
      res.write(chunk, (error) => {
        if (error) failed = true;
        resolve();
      }),
    );
  };
  for (const chunk of plan.chunks) await send(chunk);
  // An endless reply: only the client hanging up (which aborts `gone`) ends it, or a write that
  // failed. Each round yields to the event loop: a write that completes at once would otherwise
  // starve the timers and the close event this loop waits for, and spin forever after the client is gone.
  while (plan.loop && plan.loop.length > 0 && !gone.aborted && !failed) {
    for (const chunk of plan.loop) await send(chunk);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (plan.ending === "disconnect") res.socket?.destroy();
  else if (plan.ending === "stall") await silence(gone);
  else res.end();
}

function control(engine: ScenarioEngine, req: IncomingMessage, raw: string, res: ServerResponse): void {
  const [status, body] = controlAnswer(engine, req, raw);
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function controlAnswer(engine: ScenarioEngine, req: IncomingMessage, raw: string): [number, unknown] {
  if (req.method === "GET" && req.url === "/__keel/requests") return [200, engine.requests];
  if (req.method === "POST" && req.url === "/__keel/scenario") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      return [400, { error: { message: `scenario is not JSON: ${String(error)}` } }];
    }
    const check = checkScenario(parsed);
    if (!check.ok) return [400, { error: { message: check.error.message } }];
    engine.setScenario(check.scenario);
    return [200, { ok: true }];
  }
  return [404, { error: { message: "control routes: GET /__keel/requests, POST /__keel/scenario" } }];
}

export async function startMockServer(
  scenario?: Scenario,
  options: MockServerOptions = {},
): Promise<MockServer> {
  const engine = new ScenarioEngine(scenario);
  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        const url = req.url ?? "/";
        if (url.startsWith("/__keel/")) return control(engine, req, raw, res);
        const plan = engine.handle({ method: req.method ?? "GET", url, headers: headersOf(req), raw });
        return send(plan, res);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    anthropicBaseUrl: url,
    openaiBaseUrl: `${url}/v1`,
    requests: engine.requests,
    listings: engine.listings,
    setScenario: (next) => engine.setScenario(next),
    close: () => {
      // Idempotent, so a test may close in its body and again in afterEach.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
