// Provider failures as the user reads them: every HTTP status and connection failure names the
// endpoint and what to check, classified from codes and error classes (the SDKs' and the
// transport's), never from message text.
import { APIConnectionError, APIError } from "@anthropic-ai/sdk/core/error";
import { afterEach, describe, expect, it } from "vitest";
import { explainFailure, httpReason, networkCause } from "../src/failure.js";
import { getModel } from "../src/models.js";
import { anthropicAdapter } from "../src/providers/anthropic.js";
import { classifyOpenAIError } from "../src/providers/openai-shared.js";
import { ProxyError } from "../src/transport/proxy.js";
import type { AiError, Model } from "../src/types.js";

const claude = getModel("anthropic", "claude-sonnet-4-6")._unsafeUnwrap();
const local: Model = { ...claude, baseUrl: "http://127.0.0.1:8080" };
const endpoint = "http://127.0.0.1:8080/v1/messages";

function socketError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const hintOf = (e: AiError) => ("hint" in e ? e.hint : undefined);

const saved = process.env.ANTHROPIC_BASE_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
  else process.env.ANTHROPIC_BASE_URL = saved;
});

describe("explainFailure", () => {
  const explain = (status: number, model: Model = local) =>
    explainFailure(
      anthropicAdapter.classify(
        APIError.generate(status, { error: { message: "nope" } }, undefined, new Headers()),
      ),
      {
        model,
        endpoint: anthropicAdapter.endpoint?.(model),
        keyGiven: false,
      },
    );

  it("401 names the key variable", () => {
    expect(explain(401)).toEqual({
      type: "http",
      status: 401,
      reason: "auth",
      endpoint,
      hint: "Check ANTHROPIC_API_KEY: it must hold a valid key for this endpoint.",
      message: `anthropic answered 401 at ${endpoint}: nope. Check ANTHROPIC_API_KEY: it must hold a valid key for this endpoint.`,
    });
  });

  it("403 and 404 name the model id, access and the base URL with where it came from", () => {
    expect(explain(403).message).toBe(
      `anthropic answered 403 at ${endpoint}: nope. Check that the key in ANTHROPIC_API_KEY may use model claude-sonnet-4-6 (--model anthropic/claude-sonnet-4-6), and that the endpoint is the one you meant.`,
    );
    expect(hintOf(explain(404))).toBe(
      'Check the model id "claude-sonnet-4-6" (keel models lists what your key can use) and the base URL, providers.anthropic.baseUrl in config (http://127.0.0.1:8080).',
    );
    process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:9999";
    expect(hintOf(explain(404, claude))).toContain(
      "the base URL, ANTHROPIC_BASE_URL (http://127.0.0.1:9999)",
    );
    delete process.env.ANTHROPIC_BASE_URL;
    expect(explain(404, claude)).toMatchObject({ endpoint: "https://api.anthropic.com/v1/messages" });
    expect(hintOf(explain(404, claude))).toContain(
      "https://api.anthropic.com (the default; ANTHROPIC_BASE_URL or providers.anthropic.baseUrl in config changes it)",
    );
  });

  it("429 and 5xx say whether to wait or try later", () => {
    expect(explain(429)).toMatchObject({
      reason: "rate_limit",
      hint: expect.stringContaining("rate limits"),
    });
    expect(explain(500)).toMatchObject({
      reason: "server",
      hint: expect.stringContaining("try again later"),
    });
    expect(explain(529)).toMatchObject({ reason: "overloaded" });
  });

  it("a refused connection names the endpoint, the base URL and the proxy variable", () => {
    const refused = new APIConnectionError({
      cause: new TypeError("fetch failed", {
        cause: socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:8080"),
      }),
    });
    const error = explainFailure(anthropicAdapter.classify(refused), {
      model: local,
      endpoint,
      keyGiven: false,
    });
    expect(error).toMatchObject({ type: "network", reason: "refused", code: "ECONNREFUSED", endpoint });
    expect(error.message).toBe(
      `Could not reach anthropic at ${endpoint}: the connection was refused (connect ECONNREFUSED 127.0.0.1:8080). ` +
        "Check the base URL, providers.anthropic.baseUrl in config (http://127.0.0.1:8080), and HTTP_PROXY if this network needs a proxy to reach it.",
    );
  });

  it("a failing proxy is named with its variable, and NO_PROXY is offered", () => {
    const cause = new ProxyError(
      "the proxy http://127.0.0.1:3128 could not be reached: connect ECONNREFUSED 127.0.0.1:3128",
      { proxy: "http://127.0.0.1:3128", variable: "HTTPS_PROXY" },
      socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:3128"),
    );
    const error = explainFailure(classifyOpenAIError(new TypeError("fetch failed", { cause })), {
      model: claude,
      endpoint: "https://api.anthropic.com/v1/messages",
      keyGiven: true,
    });
    expect(error).toMatchObject({
      reason: "proxy",
      proxy: "http://127.0.0.1:3128",
      proxyVariable: "HTTPS_PROXY",
    });
    expect(error.message).toBe(
      "Could not reach anthropic at https://api.anthropic.com/v1/messages through the proxy: the proxy http://127.0.0.1:3128 could not be reached: connect ECONNREFUSED 127.0.0.1:3128. " +
        "Check HTTPS_PROXY (is the proxy running, and does it let api.anthropic.com through?), or add api.anthropic.com to NO_PROXY to reach it directly.",
    );
  });

  it("a key given by the caller is named as such, and other errors pass unchanged", () => {
    const auth = anthropicAdapter.classify(
      APIError.generate(401, { error: { message: "x" } }, undefined, new Headers()),
    );
    expect(hintOf(explainFailure(auth, { model: local, endpoint, keyGiven: true }))).toBe(
      "Check the API key Keel was given: it must hold a valid key for this endpoint.",
    );
    const config = { type: "config" as const, message: "No API key" };
    expect(explainFailure(config, { model: local, endpoint, keyGiven: false })).toBe(config);
  });
});

describe("classification from codes", () => {
  it("maps statuses and socket codes to reasons", () => {
    expect([400, 401, 403, 404, 408, 409, 413, 429, 500, 502, 503, 529].map(httpReason)).toEqual([
      "bad_request",
      "auth",
      "forbidden",
      "not_found",
      "timeout",
      "conflict",
      "too_large",
      "rate_limit",
      "server",
      "server",
      "overloaded",
      "overloaded",
    ]);
    const wrapped = (code: string) => new TypeError("fetch failed", { cause: socketError(code, code) });
    expect(networkCause(wrapped("ENOTFOUND"))?.reason).toBe("dns");
    expect(networkCause(wrapped("ETIMEDOUT"))?.reason).toBe("timeout");
    expect(networkCause(wrapped("ECONNRESET"))?.reason).toBe("reset");
    expect(networkCause(wrapped("CERT_HAS_EXPIRED"))?.reason).toBe("tls");
    expect(networkCause(wrapped("DEPTH_ZERO_SELF_SIGNED_CERT"))?.reason).toBe("tls");
    expect(networkCause(new TypeError("terminated"))?.reason).toBe("reset");
    expect(networkCause(new Error("ECONNREFUSED in the text only"))).toBeUndefined();
  });
});
