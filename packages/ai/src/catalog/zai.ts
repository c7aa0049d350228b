// GLM on Z.ai's API (OpenAI-compatible Chat Completions), as rows, with where each fact was checked.
// Prices are USD per million tokens.
import type { Model, OpenAICompat, ProviderInfo, ThinkingSpec } from "../types.js";

const CHECKED = "2026-12-01";

export const ZAI: ProviderInfo = {
  id: "zai",
  name: "Z.ai (GLM)",
  defaultModel: "glm-5.3",
  defaultReason: "GLM-5.3 is Z.ai's newest flagship (2026-08-19), aimed at long-horizon coding and agents.",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: [
    "https://openrouter.ai/~z-ai/glm-latest",
    "https://github.com/BlockRunAI/ClawRouter/releases/tag/v0.12.211",
    "https://docs.z.ai/guides/overview/pricing",
  ],
  notes: [
    "Z.ai's own pricing page is not in the stored docs. GLM-5.3's figures are OpenRouter's page for Z.ai's \"GLM Latest\" route (Z.ai as provider); GLM-5.2's are from ClawRouter's release notes (same price as GLM-5.1).",
    'Thinking is switched with thinking: {type: "enabled" | "disabled"}, as on GLM-4.5 and later; effort levels are not published.',
    "Z.ai's small GLM-5.3 Flash has no published price in the stored pages, so the provider has no small model here.",
  ],
};

const COMPAT: OpenAICompat = {
  reasoningField: "reasoning_content",
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: false,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: false,
  thinkingSwitch: "thinking-type",
};

const GLM_THINKING: ThinkingSpec = { mode: "toggle", efforts: [], defaultOn: true, off: "disabled" };

function glm(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "baseUrl" | "compat">): Model {
  return {
    api: "openai-completions",
    provider: "zai",
    baseUrl: "https://api.z.ai/api/paas/v4",
    apiKeyEnv: "ZAI_API_KEY",
    compat: COMPAT,
    ...row,
  };
}

export const ZAI_MODELS: readonly Model[] = [
  glm({
    id: "glm-5.3",
    name: "GLM-5.3",
    reasoning: true,
    thinking: GLM_THINKING,
    input: ["text"],
    contextWindow: 1_048_576,
    maxOutput: 131_072,
    cost: { input: 1.4, output: 4.4, cacheRead: 0.26, cacheWrite: 0 },
    source: { url: "https://openrouter.ai/~z-ai/glm-latest", checked: CHECKED },
  }),
  glm({
    id: "glm-5.2",
    name: "GLM-5.2",
    reasoning: true,
    thinking: GLM_THINKING,
    input: ["text"],
    contextWindow: 1_048_576,
    maxOutput: 262_144,
    cost: { input: 1.4, output: 4.4, cacheRead: 0.26, cacheWrite: 0 },
    legacy: true,
    source: { url: "https://github.com/BlockRunAI/ClawRouter/releases/tag/v0.12.211", checked: CHECKED },
  }),
  glm({
    id: "glm-4.6",
    name: "GLM-4.6",
    reasoning: true,
    thinking: GLM_THINKING,
    input: ["text"],
    contextWindow: 204_800,
    maxOutput: 131_072,
    cost: { input: 0.6, output: 2.2, cacheRead: 0.11, cacheWrite: 0 },
    legacy: true,
    source: { url: "https://vercel.com/ai-gateway/models/glm-5-turbo/similar", checked: CHECKED },
  }),
];
