// Anthropic's models endpoint (GET /v1/models) through the SDK's Models resource, pages followed.
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Models } from "@anthropic-ai/sdk/resources/models";
import { err, ok, type Result } from "neverthrow";
import { collect } from "../discovery.js";
import type { AdapterOptions } from "../driver.js";
import { nodeFetch } from "../transport/node-fetch.js";
import type { AiError, EndpointModel, Model } from "../types.js";
import { anthropicAdapter } from "./anthropic.js";
import { baseUrlOf } from "./base-url.js";

export async function listAnthropicModels(
  model: Model,
  options: Pick<AdapterOptions, "apiKey" | "signal" | "fetch" | "headers">,
): Promise<Result<EndpointModel[], AiError>> {
  const client = new BaseAnthropic({
    apiKey: options.apiKey,
    baseURL: baseUrlOf(model),
    maxRetries: 0,
    fetch: options.fetch ?? nodeFetch,
    defaultHeaders: { ...model.headers, ...options.headers },
    logLevel: process.env.ANTHROPIC_LOG ? undefined : "off",
  });
  try {
    return ok(await collect(new Models(client).list({ limit: 1000 }, { signal: options.signal })));
  } catch (error) {
    return err(anthropicAdapter.classify(error));
  }
}
