// Provider failures as a user of the built bin meets them: a local server answering 401, 403,
// 404, 429 and 500, a port nothing listens on, and a proxy that is down. Each run exits 1 (as
// documented), its last stderr line names the endpoint and what to fix, retries are scheduled
// on stderr, and the json result carries the typed error. A working proxy carries the run.
import { writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { ScenarioStep } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const { fresh } = mockSuite();

/** A port that was just free: a server opened on it and closed again. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function oneRetry(ws: Workspace): void {
  writeFileSync(join(ws.home, "config.json"), JSON.stringify({ stream: { maxRetries: 1 } }));
}

const lastLine = (stderr: string) => stderr.trim().split("\n").at(-1) ?? "";

describe("HTTP errors name the endpoint, the status and the fix", () => {
  const cases: { status: number; reason: string; fix: string; retries: number }[] = [
    {
      status: 401,
      reason: "auth",
      fix: "Check ANTHROPIC_API_KEY: it must hold a valid key for this endpoint.",
      retries: 0,
    },
    {
      status: 403,
      reason: "forbidden",
      fix: "Check that the key in ANTHROPIC_API_KEY may use model claude-sonnet-4-6 (--model anthropic/claude-sonnet-4-6)",
      retries: 0,
    },
    {
      status: 404,
      reason: "not_found",
      fix: 'Check the model id "claude-sonnet-4-6" (keel models lists what your key can use) and the base URL, ANTHROPIC_BASE_URL (http://127.0.0.1:',
      retries: 0,
    },
    { status: 429, reason: "rate_limit", fix: "wait, or check the rate limits of its plan.", retries: 1 },
    { status: 500, reason: "server", fix: "try again later", retries: 1 },
  ];
  for (const c of cases) {
    it(`${c.status}: exit 1, the endpoint and "${c.fix.slice(0, 40)}…"`, async () => {
      const answer: ScenarioStep = {
        kind: "error",
        status: c.status,
        headers: { "retry-after": "0" },
        message: "nope",
      };
      const { server, ws } = fresh([answer, answer]);
      oneRetry(ws);
      const r = await runKeel(["-p", "hi", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo], {
        server,
        ws,
      });
      expect(r.code).toBe(1);
      const endpoint = `${server.anthropicBaseUrl}/v1/messages`;
      const note = lastLine(r.stderr);
      expect(note).toContain(`keel: anthropic answered ${c.status} at ${endpoint}: nope.`);
      expect(note).toContain(c.fix);
      const retries = r.stderr.split("\n").filter((l) => l.startsWith("keel: retry "));
      expect(retries).toEqual(
        c.retries === 0
          ? []
          : [
              expect.stringMatching(
                new RegExp(`^keel: retry 1/1 in 0 ms: anthropic answered ${c.status} at `),
              ),
            ],
      );
      expect(server.requests).toHaveLength(1 + c.retries);
      expect(lines(r.stdout)[0]).toMatchObject({
        type: "result",
        isError: true,
        outcome: "error",
        error: {
          type: "http",
          status: c.status,
          reason: c.reason,
          endpoint,
          hint: expect.stringContaining(c.fix.slice(0, 30)),
        },
      });
    });
  }

  it("an OpenAI model names OPENAI_API_KEY", async () => {
    const { server, ws } = fresh([{ kind: "error", status: 401, message: "bad key" }]);
    const r = await runKeel(["-p", "hi", "--model", "openai/gpt-5.4", "--cwd", ws.repo], {
      server,
      ws,
      env: { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: "test" },
    });
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe(
      `keel: openai answered 401 at ${server.openaiBaseUrl}/responses: bad key. Check OPENAI_API_KEY: it must hold a valid key for this endpoint.`,
    );
  });
});

describe("connection failures name the base URL and the proxy", () => {
  it("a refused port: exit 1, retried on the schedule, the base URL and HTTP_PROXY named", async () => {
    const port = await deadPort();
    const { ws } = fresh([]);
    oneRetry(ws);
    const base = `http://127.0.0.1:${port}`;
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      ws,
      env: { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: "test" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keel: retry 1\/1 in \d+(\.\d)? (ms|s): Could not reach anthropic at /m);
    expect(lastLine(r.stderr)).toBe(
      `keel: Could not reach anthropic at ${base}/v1/messages: the connection was refused (connect ECONNREFUSED 127.0.0.1:${port}). ` +
        `Check the base URL, ANTHROPIC_BASE_URL (${base}), and HTTP_PROXY if this network needs a proxy to reach it.`,
    );
  });

  it("a proxy that is down is named with its variable, and NO_PROXY offered", async () => {
    const port = await deadPort();
    const { server, ws } = fresh([{ text: "never" }]);
    writeFileSync(join(ws.home, "config.json"), JSON.stringify({ stream: { maxRetries: 0 } }));
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { HTTP_PROXY: `http://127.0.0.1:${port}`, NO_PROXY: undefined, no_proxy: undefined },
    });
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(lastLine(r.stderr)).toBe(
      `keel: Could not reach anthropic at ${server.anthropicBaseUrl}/v1/messages through the proxy: the proxy http://127.0.0.1:${port} could not be reached: connect ECONNREFUSED 127.0.0.1:${port}. ` +
        "Check HTTP_PROXY (is the proxy running, and does it let 127.0.0.1 through?), or add 127.0.0.1 to NO_PROXY to reach it directly.",
    );
  });
});

describe("a working proxy", () => {
  let proxy: Server;
  const forwarded: string[] = [];
  beforeAll(async () => {
    proxy = createServer((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      const target = new URL(req.url ?? "");
      const up = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  it("carries the model requests when HTTP_PROXY is set, and is skipped when NO_PROXY covers the host", async () => {
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const { server, ws } = fresh([{ text: "through the proxy" }, { text: "direct" }]);
    const via = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { HTTP_PROXY: proxyUrl, NO_PROXY: undefined, no_proxy: undefined },
    });
    expect(via).toMatchObject({ code: 0, stdout: "through the proxy\n" });
    expect(forwarded).toEqual([`POST ${server.anthropicBaseUrl}/v1/messages`]);
    const direct = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { HTTP_PROXY: proxyUrl, NO_PROXY: "127.0.0.1", no_proxy: undefined },
    });
    expect(direct).toMatchObject({ code: 0, stdout: "direct\n" });
    expect(forwarded).toHaveLength(1);
  });
});
