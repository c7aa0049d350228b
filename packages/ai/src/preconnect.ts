// Opens a model's connection ahead of its first request, so a CLI's setup overlaps the TCP and
// TLS handshakes instead of waiting for them after it. Only the built-in transport uses it.
import type { Api, Model } from "./types.js";

/** Where each SDK sends a model without a baseUrl: its own environment variable, then its default. */
const SDK_DEFAULT: Record<Api, () => string> = {
  "anthropic-messages": () => process.env.ANTHROPIC_BASE_URL || "https://api.anthropic.com",
  "openai-completions": () => process.env.OPENAI_BASE_URL || "https://api.openai.com/v1",
  "openai-responses": () => process.env.OPENAI_BASE_URL || "https://api.openai.com/v1",
};

/**
 * Best effort and silent: a connection that fails here is simply opened again by the request.
 * Nothing happens for a model that could not be called anyway (no key given, none in its
 * environment variable). The transport (node:http, node:tls) loads here, as the providers load
 * it, not with the package.
 */
export function preconnect(model: Model, apiKey?: string): void {
  if (!apiKey && model.apiKeyEnv && !process.env[model.apiKeyEnv]) return;
  const url = model.baseUrl ?? SDK_DEFAULT[model.api]();
  void import("./transport/node-fetch.js").then((transport) => transport.preconnect(url));
}
