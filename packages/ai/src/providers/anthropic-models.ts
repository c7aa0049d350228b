// Anthropic's models endpoint (GET /v1/models) through the SDK's Models resource, pages followed.
import { Models } from "@anthropic-ai/sdk/resources/models";
import { err, ok, type Result } from "neverthrow";
import { collect } from "../discovery.js";
import type { AdapterOptions } from "../driver.js";
import type { AiError, EndpointModel, Model } from "../types.js";
import { anthropicAdapter, anthropicClient } from "./anthropic.js";

export async function listAnthropicModels(
  model: Model,
  options: Pick<AdapterOptions, "apiKey" | "signal" | "fetch" | "headers">,
): Promise<Result<EndpointModel[], AiError>> {
  // The SDK's log lines have no caller's log to go to here, so they go nowhere (never the console).
  const client = anthropicClient(model, options);
  try {
    return ok(await collect(new Models(client).list({ limit: 1000 }, { signal: options.signal })));
  } catch (error) {
    return err(anthropicAdapter.classify(error));
  }
}
