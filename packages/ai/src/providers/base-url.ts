// The server a model's requests go to, decided once for the adapters and for preconnect: the
// model's baseUrl, else the SDK's environment variable, else the SDK's default endpoint.
import type { Api, Model } from "../types.js";

const FALLBACK: Record<Api, { env: string; url: string }> = {
  "anthropic-messages": { env: "ANTHROPIC_BASE_URL", url: "https://api.anthropic.com" },
  "openai-completions": { env: "OPENAI_BASE_URL", url: "https://api.openai.com/v1" },
  "openai-responses": { env: "OPENAI_BASE_URL", url: "https://api.openai.com/v1" },
};

export function baseUrlOf(model: Model): string {
  return baseUrlSource(model).url;
}

/** The base URL and where it came from, for messages that say which setting to check. */
export function baseUrlSource(model: Model): { url: string; from: "model" | "env" | "default"; env: string } {
  const fallback = FALLBACK[model.api];
  if (model.baseUrl) return { url: model.baseUrl, from: "model", env: fallback.env };
  const fromEnv = process.env[fallback.env]?.trim();
  if (fromEnv) return { url: fromEnv, from: "env", env: fallback.env };
  return { url: fallback.url, from: "default", env: fallback.env };
}

/** The URL a request for `path` goes to (the SDKs join them the same way). */
export function endpointOf(model: Model, path: string): string {
  return `${baseUrlOf(model).replace(/\/+$/, "")}${path}`;
}
