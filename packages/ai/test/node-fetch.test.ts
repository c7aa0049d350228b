// nodeFetch against a real local HTTP server: fetch's contract where the provider SDKs rely on
// it (streamed bodies, error shapes, abort, decoding, redirects) and delegation of the rest.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preconnect as preconnectModel } from "../src/preconnect.js";
import { nodeFetch, preconnect } from "../src/transport/node-fetch.js";
import type { Model } from "../src/types.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base = "";
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      const handler = routes.get(new URL(req.url ?? "/", base).pathname);
      if (handler) handler(req, res, body);
      else res.writeHead(404).end("no route");
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.close(() => r());
      // An unused preconnected socket would otherwise hold close() for its 30 s idle timeout.
      server.closeAllConnections();
    }),
);

async function readAll(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error & { cause?: { code?: string } }> {
  try {
    await promise;
  } catch (e) {
    return e as Error & { cause?: { code?: string } };
  }
  throw new Error("expected a rejection");
}

describe("nodeFetch", () => {
  it("sends method, headers and body, and answers with status, headers and body", async () => {
    routes.set("/echo", (req, res, body) => {
      res.writeHead(201, { "content-type": "application/json", "x-multi": ["a", "b"] });
      res.end(
        JSON.stringify({
          method: req.method,
          auth: req.headers["x-api-key"],
          length: req.headers["content-length"],
          body,
        }),
      );
    });
    const res = await nodeFetch(`${base}/echo`, {
      method: "POST",
      headers: new Headers({ "x-api-key": "k", "content-type": "application/json" }),
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get("x-multi")).toBe("a, b");
    expect(await res.json()).toEqual({
      method: "POST",
      auth: "k",
      length: String(Buffer.byteLength('{"hello":"wörld"}')),
      body: '{"hello":"wörld"}',
    });
  });

  it("streams: the first chunk is readable before the server has finished", async () => {
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    routes.set("/stream", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      void finished.then(() => res.end("data: two\n\n"));
    });
    const res = await nodeFetch(`${base}/stream`, { method: "POST", body: "{}" });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    finish();
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value)).toBe("data: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("a refused connection rejects like fetch: TypeError('fetch failed') with the socket error as cause", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = await rejection(nodeFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe("fetch failed");
    expect(e.cause?.code).toBe("ECONNREFUSED");
  });

  it("a connection cut mid-body fails the read with TypeError('terminated')", async () => {
    routes.set("/cut", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: partial\n\n", () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const res = await nodeFetch(`${base}/cut`, { method: "POST", body: "{}" });
    const e = await rejection(readAll(res));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe("terminated");
  });

  it("abort before the request and during the body both reject with the AbortError", async () => {
    const early = new AbortController();
    early.abort();
    expect((await rejection(nodeFetch(`${base}/echo`, { signal: early.signal }))).name).toBe("AbortError");

    routes.set("/slow", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    });
    const late = new AbortController();
    const res = await nodeFetch(`${base}/slow`, { method: "POST", body: "{}", signal: late.signal });
    const reader = res.body!.getReader();
    await reader.read();
    late.abort();
    const e = await rejection(reader.read());
    expect(e.name).toBe("AbortError");
  });

  it("decodes gzip, gives 204 no body, and follows redirects the way fetch does", async () => {
    routes.set("/gz", (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-type": "application/json" });
      res.end(gzipSync('{"zipped":true}'));
    });
    expect(await (await nodeFetch(`${base}/gz`)).json()).toEqual({ zipped: true });

    routes.set("/empty", (_req, res) => res.writeHead(204).end());
    const empty = await nodeFetch(`${base}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();

    routes.set("/moved", (_req, res) => res.writeHead(307, { location: "/echo" }).end());
    routes.set("/see-other", (_req, res) => res.writeHead(303, { location: `${base}/echo` }).end());
    const kept = (await (await nodeFetch(`${base}/moved`, { method: "POST", body: "same" })).json()) as {
      method: string;
      body: string;
    };
    expect(kept).toMatchObject({ method: "POST", body: "same" });
    const changed = (await (
      await nodeFetch(`${base}/see-other`, { method: "POST", body: "gone" })
    ).json()) as {
      method: string;
      body: string;
    };
    expect(changed).toMatchObject({ method: "GET", body: "" });
  });

  it("hands what it does not cover to the global fetch", async () => {
    const res = await nodeFetch("data:text/plain,hello");
    expect(await res.text()).toBe("hello");
    const streamed = await nodeFetch(`${base}/echo`, {
      method: "POST",
      body: new Blob(["from a blob"]),
    });
    expect(((await streamed.json()) as { body: string }).body).toBe("from a blob");
  });

  it("a preconnected connection carries the first request", async () => {
    routes.set("/hello", (_req, res) => res.writeHead(200).end("hi"));
    // Its own origin (localhost, not 127.0.0.1), so connections pooled by earlier tests do not count.
    const origin = base.replace("127.0.0.1", "localhost");
    const before = connections;
    preconnect(origin);
    for (let i = 0; connections === before && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
    expect(connections).toBe(before + 1);
    expect(await (await nodeFetch(`${origin}/hello`)).text()).toBe("hi");
    // No second connection: the request went out on the one already open.
    expect(connections).toBe(before + 1);
  });

  it("a preconnect that cannot connect is silent; the request then fails as usual", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    preconnect(`http://127.0.0.1:${port}`);
    preconnect("not a url");
    preconnect("file:///etc/hosts");
    const e = await rejection(nodeFetch(`http://127.0.0.1:${port}/`));
    expect(e.message).toBe("fetch failed");
  });

  it("preconnect(model) connects only where the built-in transport will send the call", async () => {
    // The earlier tests took their warm connections (localhost), so 127.0.0.1 has none yet.
    const model = (path: string): Model =>
      ({
        id: "m",
        provider: "p",
        api: "openai-completions",
        baseUrl: `${base}/${path}`,
        apiKeyEnv: "KEEL_TEST_NO_SUCH_KEY",
      }) as Model;
    const settle = () => new Promise((r) => setTimeout(r, 100));

    const before = connections;
    preconnectModel(model("a"));
    preconnectModel(model("b"), { apiKey: "k", fetch: globalThis.fetch });
    await settle();
    expect(connections).toBe(before);

    preconnectModel(model("c"), { apiKey: "k" });
    for (let i = 0; connections === before && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
    expect(connections).toBe(before + 1);
  });
});
