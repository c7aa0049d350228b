// DeepSeek's models (OpenAI-compatible Chat Completions), as rows, with where each fact was checked.
// Prices are USD per million tokens at DeepSeek's peak rate (off-peak is half).
import type { Model, OpenAICompat, ProviderInfo, ThinkingSpec } from "../types.js";

const CHECKED = "2026-12-01";
const PRICING = "https://api-docs.deepseek.com/quick_start/pricing";

export const DEEPSEEK: ProviderInfo = {
  id: "deepseek",
  name: "DeepSeek",
  defaultModel: "deepseek-v4-pro",
  defaultReason:
    "DeepSeek V4 Pro is DeepSeek's flagship on its pricing page (the 0813 build); Flash is the faster, cheaper one.",
  smallModel: "deepseek-flash",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: [PRICING, "https://api-docs.deepseek.com/zh-cn/quick_start/pricing"],
  notes: [
    "Rows hold the peak price (01:00-04:00 and 06:00-10:00 UTC on weekdays); off-peak requests cost half, so reported cost is an upper bound.",
    "Thinking is on by default and switched with thinking: {type}; the pricing page does not list effort values, so high and max come from third-party guides (deepseek-mcp-server v2.0.0 notes, apidog).",
    "deepseek-chat and deepseek-reasoner are not on the pricing page any more (a third-party changelog dates their retirement 2026-07-24); deepseek-v4-flash is an accepted legacy name served by deepseek-flash. Kept as legacy rows so old sessions still resolve.",
  ],
};

const COMPAT: OpenAICompat = {
  reasoningField: "reasoning_content",
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: true,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: false,
  thinkingSwitch: "thinking-type",
};

/** The V2/V3 era names: no effort parameter, no switch (the model name chose thinking). */
const LEGACY_COMPAT: OpenAICompat = { ...COMPAT, supportsReasoningEffort: false, thinkingSwitch: undefined };

const V4_THINKING: ThinkingSpec = {
  mode: "toggle",
  efforts: ["high", "max"],
  defaultOn: true,
  off: "disabled",
};

function deepseek(
  row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "baseUrl" | "compat"> & { compat?: OpenAICompat },
): Model {
  return {
    api: "openai-completions",
    provider: "deepseek",
    baseUrl: "https://api.deepseek.com",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    compat: COMPAT,
    ...row,
  };
}

const at = { url: PRICING, checked: CHECKED };

export const DEEPSEEK_MODELS: readonly Model[] = [
  deepseek({
    id: "deepseek-v4-pro",
    name: "DeepSeek V4 Pro",
    reasoning: true,
    thinking: V4_THINKING,
    input: ["text"],
    contextWindow: 1_000_000,
    maxOutput: 384_000,
    cost: { input: 1.32, output: 3.96, cacheRead: 0.044, cacheWrite: 0 },
    note: "Peak price; off-peak is half.",
    source: at,
  }),
  deepseek({
    id: "deepseek-flash",
    name: "DeepSeek V4.1 Flash",
    reasoning: true,
    thinking: V4_THINKING,
    input: ["text", "image"],
    contextWindow: 1_000_000,
    maxOutput: 384_000,
    cost: { input: 0.3, output: 1.2, cacheRead: 0.006, cacheWrite: 0 },
    note: "Peak price; off-peak is half.",
    source: at,
  }),

  // ── Legacy names ────────────────────────────────────────────────────────────────────────────
  deepseek({
    id: "deepseek-v4-flash",
    name: "DeepSeek V4 Flash (served by V4.1 Flash)",
    reasoning: true,
    thinking: V4_THINKING,
    input: ["text"],
    contextWindow: 1_000_000,
    maxOutput: 384_000,
    cost: { input: 0.3, output: 1.2, cacheRead: 0.006, cacheWrite: 0 },
    legacy: true,
    source: at,
  }),
  deepseek({
    id: "deepseek-chat",
    name: "DeepSeek V3.2 (non-thinking)",
    reasoning: false,
    input: ["text"],
    contextWindow: 128_000,
    maxOutput: 8_192,
    cost: { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 },
    compat: LEGACY_COMPAT,
    legacy: true,
    note: "No longer on DeepSeek's pricing page.",
    source: at,
  }),
  deepseek({
    id: "deepseek-reasoner",
    name: "DeepSeek V3.2 (thinking)",
    reasoning: true,
    thinking: { mode: "toggle", efforts: [], defaultOn: true },
    input: ["text"],
    contextWindow: 128_000,
    maxOutput: 65_536,
    cost: { input: 0.28, output: 0.42, cacheRead: 0.028, cacheWrite: 0 },
    compat: LEGACY_COMPAT,
    legacy: true,
    note: "No longer on DeepSeek's pricing page.",
    source: at,
  }),
];
