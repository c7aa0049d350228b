// OpenRouter (an OpenAI-compatible router; ids carry the upstream vendor), as rows.
// Prices are USD per million tokens: OpenRouter passes the vendors' list prices through.
import type { Model, OpenAICompat, ProviderInfo } from "../types.js";

const CHECKED = "2026-12-01";

export const OPENROUTER: ProviderInfo = {
  id: "openrouter",
  name: "OpenRouter",
  defaultModel: "anthropic/claude-opus-5.5",
  defaultReason: "Routes to Anthropic's recommended agentic-coding model, Claude Opus 5.5.",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: ["https://openrouter.ai/models", "https://openrouter.ai/docs/api-reference/list-available-models"],
  notes: [
    "OpenRouter lists hundreds of models; the catalog keeps a few entries for the vendors Keel also reaches directly, with the vendors' figures (see anthropic.ts and openai.ts). `keel models --provider openrouter` lists the rest from OpenRouter's public models endpoint.",
  ],
};

const COMPAT: OpenAICompat = {
  reasoningField: "reasoning",
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: false,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: false,
};

function routed(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "baseUrl" | "compat" | "input">): Model {
  return {
    api: "openai-completions",
    provider: "openrouter",
    baseUrl: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    compat: COMPAT,
    input: ["text", "image"],
    ...row,
  };
}

export const OPENROUTER_MODELS: readonly Model[] = [
  routed({
    id: "anthropic/claude-opus-5.5",
    name: "Claude Opus 5.5 (OpenRouter)",
    reasoning: true,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
    tokenizer: { family: "claude-2026", charsPerToken: 3.1 },
    source: { url: "https://platform.claude.com/docs/en/about-claude/models/overview", checked: CHECKED },
  }),
  routed({
    id: "openai/gpt-6.2-sol",
    name: "GPT-6.2 Sol (OpenRouter)",
    reasoning: true,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
    source: { url: "https://developers.openai.com/api/docs/models/gpt-6.2-sol", checked: CHECKED },
  }),
  routed({
    id: "anthropic/claude-sonnet-4.6",
    name: "Claude Sonnet 4.6 (OpenRouter)",
    reasoning: true,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    legacy: true,
    source: { url: "https://platform.claude.com/docs/en/about-claude/pricing", checked: CHECKED },
  }),
  routed({
    id: "openai/gpt-5",
    name: "GPT-5 (OpenRouter)",
    reasoning: true,
    contextWindow: 400_000,
    maxOutput: 128_000,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    legacy: true,
    source: { url: "https://developers.openai.com/api/docs/models/gpt-5", checked: CHECKED },
  }),
];
