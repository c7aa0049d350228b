// nodeFetch and preconnect over https, as every real provider is reached: a local TLS server
// with a test certificate (test/fixtures, for localhost only). The client runs in a child
// process, since Node takes extra CAs only at start (NODE_EXTRA_CA_CERTS); it loads the built
// transport from dist/ (turbo builds a package before testing it).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FIXTURES = join(import.meta.dirname, "fixtures");
const CERT = join(FIXTURES, "localhost-cert.pem");
const TRANSPORT = join(import.meta.dirname, "..", "dist", "transport", "node-fetch.js");

let server: Server;
let origin = "";
/** TLS connections as the server completed their handshakes, and requests with the connection each came on. */
const handshakes: { socket: unknown; at: number }[] = [];
const requests: { socket: unknown; at: number }[] = [];

beforeAll(async () => {
  if (!existsSync(TRANSPORT)) throw new Error(`${TRANSPORT} is missing: run pnpm build in packages/ai first`);
  server = createServer(
    { cert: readFileSync(CERT), key: readFileSync(join(FIXTURES, "localhost-key.pem")) },
    (req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (d: string) => (body += d));
      req.on("end", () => {
        requests.push({ socket: req.socket, at: Date.now() });
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ method: req.method, body })}\n\n`);
        res.end("data: [DONE]\n\n");
      });
    },
  );
  server.on("secureConnection", (socket) => handshakes.push({ socket, at: Date.now() }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Runs `script` (an ES module body with `transport` in scope) in a child; returns its stdout. */
async function client(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  const source = `const transport = await import(${JSON.stringify(new URL(`file://${TRANSPORT}`).href)});\n${script}`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", source], {
    env,
    timeout: 20_000,
  });
  return stdout.trim();
}

function envWith(extraCa: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  if (extraCa) env.NODE_EXTRA_CA_CERTS = extraCa;
  return env;
}

describe("nodeFetch over https", () => {
  it("streams POSTs over TLS, the first on the connection preconnect opened ahead of it", async () => {
    const [handshakesBefore, requestsBefore] = [handshakes.length, requests.length];
    const out = await client(
      `transport.preconnect(${JSON.stringify(origin)});
await new Promise((r) => setTimeout(r, 500));
const texts = [];
for (const n of [1, 2]) {
  const res = await transport.nodeFetch(${JSON.stringify(`${origin}/v1/messages`)}, { method: "POST", body: "request " + n });
  texts.push(await res.text());
}
console.log(JSON.stringify(texts));`,
      envWith(CERT),
    );
    expect(JSON.parse(out)).toEqual([
      'data: {"method":"POST","body":"request 1"}\n\ndata: [DONE]\n\n',
      'data: {"method":"POST","body":"request 2"}\n\ndata: [DONE]\n\n',
    ]);
    // The first request came on the first connection, whose handshake was done while the client
    // still waited, well before the request. (Whether the second reuses it is the agent's pooling.)
    const preconnected = handshakes[handshakesBefore]!;
    const first = requests[requestsBefore]!;
    expect(first.socket).toBe(preconnected.socket);
    expect(first.at - preconnected.at).toBeGreaterThanOrEqual(200);
  });

  it("verifies the certificate: without the CA the request fails like fetch, and so does the preconnect", async () => {
    const out = await client(
      `transport.preconnect(${JSON.stringify(origin)});
try {
  await transport.nodeFetch(${JSON.stringify(`${origin}/v1/messages`)}, { method: "POST", body: "{}" });
  console.log("connected");
} catch (e) {
  console.log(JSON.stringify({ name: e.name, message: e.message, code: e.cause?.code }));
}`,
      envWith(undefined),
    );
    expect(JSON.parse(out)).toEqual({
      name: "TypeError",
      message: "fetch failed",
      code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/),
    });
  });
});
