// The server a model's requests go to, decided once for the adapters and for preconnect: the
// model's baseUrl, else the SDK's environment variable, else the SDK's default endpoint.
import type { Api, Model } from "../types.js";

const FALLBACK: Record<Api, { env: string; url: string }> = {
  "anthropic-messages": { env: "ANTHROPIC_BASE_URL", url: "https://api.anthropic.com" },
  "openai-completions": { env: "OPENAI_BASE_URL", url: "https://api.openai.com/v1" },
  "openai-responses": { env: "OPENAI_BASE_URL", url: "https://api.openai.com/v1" },
};

export function baseUrlOf(model: Model): string {
  const fallback = FALLBACK[model.api];
  return model.baseUrl ?? (process.env[fallback.env]?.trim() || fallback.url);
}
