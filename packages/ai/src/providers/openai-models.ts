// OpenAI's models endpoint (GET /v1/models), which OpenAI-compatible servers (Ollama, vLLM,
// LM Studio, OpenRouter, DeepSeek…) serve in the same shape, through the OpenAI SDK.
import { err, ok, type Result } from "neverthrow";
import { collect } from "../discovery.js";
import type { AdapterOptions } from "../driver.js";
import type { AiError, EndpointModel, Model } from "../types.js";
import { classifyOpenAIError, createClient } from "./openai-shared.js";

export async function listOpenAIModels(
  model: Model,
  options: Pick<AdapterOptions, "apiKey" | "signal" | "fetch" | "headers">,
): Promise<Result<EndpointModel[], AiError>> {
  const client = createClient(model, options as AdapterOptions);
  try {
    return ok(await collect(client.models.list({ signal: options.signal })));
  } catch (error) {
    return err(classifyOpenAIError(error));
  }
}
