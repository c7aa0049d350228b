// Qwen on Alibaba Cloud Model Studio (DashScope), international endpoint, OpenAI-compatible mode.
// Prices are USD per million tokens, the lowest context tier in the row and higher tiers in `tiers`.
import type { Model, OpenAICompat, ProviderInfo, ThinkingSpec } from "../types.js";

const CHECKED = "2026-12-01";

export const DASHSCOPE: ProviderInfo = {
  id: "dashscope",
  name: "Qwen (Alibaba Cloud Model Studio)",
  defaultModel: "qwen3.5-plus",
  defaultReason:
    "Model Studio's own Claude Code guide (2026-02-16) points coding agents at qwen3.5-plus, its hosted flagship for agentic work.",
  smallModel: "qwen3-coder-flash",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: [
    "https://www.alibabacloud.com/help/en/model-studio/claude-code",
    "https://alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope",
    "https://wavespeed.ai/zh-CN/llm/qwen/qwen3.5-plus-02-15",
    "https://vercel.com/ai-gateway/models/qwen3-max.md",
  ],
  notes: [
    "The stored copies of Alibaba's own pages stop in February 2026, and none of them carries a price table. Newer models (Qwen 3.6 Plus, Qwen 3.7 Plus and Max) appear only on third-party pages; Keel lists them from the models endpoint (`keel models --provider dashscope`) and runs them with the provider's defaults.",
    "qwen3.5-plus prices and tiers are a reseller's list prices (wavespeed.ai) that match api-evangelist's sweep ($0.40 input up to 256K); its output limit is not published there, so the row holds 32K, the Qwen-Plus limit on the same page.",
    "qwen3-max figures are Vercel AI Gateway's (Alibaba as provider). qwen3-coder-plus and qwen3-coder-flash keep the figures of the previous catalog (as mirrored by models.dev).",
    "Cache-read prices for qwen3.5-plus and qwen3-max were not found: marked unknown.",
  ],
};

const COMPAT: OpenAICompat = {
  reasoningField: "reasoning_content",
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: false,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: false,
  thinkingSwitch: "enable_thinking",
};

/** Qwen 3 hybrid models: thinking switched with enable_thinking, off unless asked. */
const HYBRID: ThinkingSpec = { mode: "toggle", efforts: [], defaultOn: false, off: "omit" };

function qwen(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "baseUrl" | "compat">): Model {
  return {
    api: "openai-completions",
    provider: "dashscope",
    baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    apiKeyEnv: "DASHSCOPE_API_KEY",
    compat: COMPAT,
    ...row,
  };
}

export const DASHSCOPE_MODELS: readonly Model[] = [
  qwen({
    id: "qwen3.5-plus",
    name: "Qwen3.5 Plus",
    reasoning: true,
    thinking: HYBRID,
    input: ["text", "image"],
    contextWindow: 1_000_000,
    maxOutput: 32_768,
    cost: {
      input: 0.4,
      output: 2.4,
      cacheRead: 0,
      cacheWrite: 0,
      tiers: [{ aboveInputTokens: 256_000, input: 0.5, output: 3, cacheRead: 0, cacheWrite: 0 }],
      unknown: ["cacheRead"],
    },
    source: { url: "https://wavespeed.ai/zh-CN/llm/qwen/qwen3.5-plus-02-15", checked: CHECKED },
  }),
  qwen({
    id: "qwen3-max",
    name: "Qwen3 Max",
    reasoning: true,
    thinking: HYBRID,
    input: ["text"],
    contextWindow: 262_144,
    maxOutput: 65_536,
    cost: { input: 1.2, output: 6, cacheRead: 0, cacheWrite: 0, unknown: ["cacheRead"] },
    source: { url: "https://vercel.com/ai-gateway/models/qwen3-max.md", checked: CHECKED },
  }),
  qwen({
    id: "qwen3-coder-plus",
    name: "Qwen3 Coder Plus",
    reasoning: false,
    input: ["text"],
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    cost: { input: 1, output: 5, cacheRead: 0.2, cacheWrite: 1.25 },
    source: { url: "https://docs.cline.bot/provider-config/qwen", checked: CHECKED },
  }),
  qwen({
    id: "qwen3-coder-flash",
    name: "Qwen3 Coder Flash",
    reasoning: false,
    input: ["text"],
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    cost: { input: 0.3, output: 1.5, cacheRead: 0.06, cacheWrite: 0.375 },
    source: { url: "https://models.dev", checked: CHECKED },
  }),
];
