// Kimi on Moonshot's API (OpenAI-compatible Chat Completions), as rows, with where each fact was checked.
// Prices are USD per million tokens.
import type { Model, OpenAICompat, ProviderInfo, ThinkingSpec } from "../types.js";

const CHECKED = "2026-12-01";

export const MOONSHOT: ProviderInfo = {
  id: "moonshot",
  name: "Moonshot (Kimi)",
  defaultModel: "kimi-k2.7-code",
  defaultReason:
    "Kimi K2.7 Code is Moonshot's coding model (thinking always on); Kimi K3 is the general flagship.",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: [
    "https://platform.kimi.ai/docs/pricing/chat-k3",
    "https://platform.kimi.com/docs/pricing/chat-k26",
    "https://github.com/siml1169/kimi-copilot-provider_k3",
    "https://www.chatbase.co/blog/kimi-k2-api",
    "https://www.promptfoo.dev/docs/providers/moonshot/",
  ],
  notes: [
    "Moonshot's own pricing pages are stored without their price tables; the figures come from a tool that quotes them (\"official pricing, verified 2026-07-24\") and agree with kimi-k3's $3 / $0.30 / $15 in codeburn's pricing fix.",
    "Moonshot publishes max output as the whole window, which input also uses; providers send maxOutput as the default max_tokens, so the rows hold 32K to keep default requests valid.",
    "Kimi K3.1 Pro appears on a relay's pages only; `keel models --provider moonshot` lists it from the endpoint when the key can use it.",
    "The K2 preview and K2 Thinking ids were discontinued in 2026 (promptfoo's provider docs); they stay as legacy rows so old sessions still resolve.",
  ],
};

const COMPAT: OpenAICompat = {
  reasoningField: "reasoning_content",
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: false,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: true,
};

/** Thinking Keel cannot configure on these ids: on by default, no switch it knows of. */
const ALWAYS: ThinkingSpec = { mode: "toggle", efforts: [], defaultOn: true };

function kimi(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "baseUrl" | "compat">): Model {
  return {
    api: "openai-completions",
    provider: "moonshot",
    baseUrl: "https://api.moonshot.ai/v1",
    apiKeyEnv: "MOONSHOT_API_KEY",
    compat: COMPAT,
    ...row,
  };
}

const at = (url: string) => ({ url, checked: CHECKED });

export const MOONSHOT_MODELS: readonly Model[] = [
  kimi({
    id: "kimi-k2.7-code",
    name: "Kimi K2.7 Code",
    reasoning: true,
    thinking: ALWAYS,
    input: ["text", "image"],
    contextWindow: 262_144,
    maxOutput: 32_768,
    cost: { input: 0.95, output: 4, cacheRead: 0.19, cacheWrite: 0 },
    source: at("https://github.com/siml1169/kimi-copilot-provider_k3"),
  }),
  kimi({
    id: "kimi-k3",
    name: "Kimi K3",
    reasoning: true,
    thinking: ALWAYS,
    input: ["text", "image"],
    contextWindow: 1_048_576,
    maxOutput: 32_768,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 0 },
    source: at("https://platform.kimi.ai/docs/pricing/chat-k3"),
  }),
  kimi({
    id: "kimi-k2.6",
    name: "Kimi K2.6",
    reasoning: true,
    thinking: ALWAYS,
    input: ["text", "image"],
    contextWindow: 262_144,
    maxOutput: 32_768,
    cost: { input: 0.95, output: 4, cacheRead: 0.16, cacheWrite: 0 },
    source: at("https://platform.kimi.com/docs/pricing/chat-k26"),
  }),

  // ── Legacy ──────────────────────────────────────────────────────────────────────────────────
  kimi({
    id: "kimi-k2.5",
    name: "Kimi K2.5",
    reasoning: true,
    thinking: ALWAYS,
    input: ["text", "image"],
    contextWindow: 262_144,
    maxOutput: 32_768,
    cost: { input: 0.6, output: 3, cacheRead: 0.1, cacheWrite: 0 },
    legacy: true,
    source: at("https://github.com/siml1169/kimi-copilot-provider_k3"),
  }),
  kimi({
    id: "kimi-k2-0905-preview",
    name: "Kimi K2 (0905)",
    reasoning: false,
    input: ["text"],
    contextWindow: 262_144,
    maxOutput: 32_768,
    cost: { input: 0.6, output: 2.5, cacheRead: 0.15, cacheWrite: 0 },
    legacy: true,
    note: "Discontinued by Moonshot in 2026.",
    source: at("https://www.promptfoo.dev/docs/providers/moonshot/"),
  }),
  kimi({
    id: "kimi-k2-thinking",
    name: "Kimi K2 Thinking",
    reasoning: true,
    thinking: ALWAYS,
    input: ["text"],
    contextWindow: 262_144,
    maxOutput: 32_768,
    cost: { input: 0.6, output: 2.5, cacheRead: 0.15, cacheWrite: 0 },
    legacy: true,
    note: "Discontinued by Moonshot in 2026.",
    source: at("https://www.promptfoo.dev/docs/providers/moonshot/"),
  }),
];
