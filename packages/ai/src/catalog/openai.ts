// OpenAI's models on the Responses API, as rows, with where each fact was checked.
// Prices are USD per million tokens; cacheWrite is the 30-minute write OpenAI bills since GPT-5.6.
import type { Model, ModelCost, ProviderInfo, ThinkingSpec, TokenizerInfo } from "../types.js";

const CHECKED = "2026-12-01";
const MODELS_PAGE = "https://developers.openai.com/api/docs/models";
const page = (id: string) => `https://developers.openai.com/api/docs/models/${id}`;

export const OPENAI: ProviderInfo = {
  id: "openai",
  name: "OpenAI",
  defaultModel: "gpt-6.2-astra",
  defaultReason:
    "OpenAI's models page says to start with GPT-6.2 Astra, its flagship for complex reasoning and coding (GPT-6.2 Sol balances cost; pick it with --model).",
  smallModel: "gpt-6-luna",
  modelsEndpoint: "openai",
  checked: CHECKED,
  sources: [
    MODELS_PAGE,
    page("gpt-6.2-sol"),
    page("gpt-6-luna"),
    page("gpt-5.6-luna"),
    "https://developers.openai.com/api/docs/guides/reasoning",
    "https://developers.openai.com/api/docs/pricing",
    "https://developers.openai.com/api/docs/guides/tools-web-search",
  ],
  notes: [
    "The issue named GPT-5.5 (efforts none…xhigh) as OpenAI's frontier. OpenAI's stored models page has moved on: GPT-6.2 Astra and Sol (released 2026-11-17), GPT-6.1 Terra and GPT-6 Luna are the current lineup, so GPT-5.5 is kept as legacy with the efforts the issue gives.",
    "OpenAI's model pages state the long-context rule used for every GPT-6 row: over 272K input tokens, input and cache rates double and output costs 1.5x, for the whole request. GPT-5.5's same tier is from a third-party model page (docs.oxen.ai).",
    "Cache writes cost 1.25x input (stated on the GPT-5.6 Luna and GPT-6 Luna pages); rows without a published write price use that rule.",
    "GPT-6.2 Astra's cached input ($0.40) is from LiteLLM's release note (60% below GPT-6 Astra's $1); its page was not in the stored docs. GPT-6.1 Terra's and GPT-5.5's cached input prices were not found: marked unknown (billed as $0 by Keel).",
    "GPT-5.4's long-context tier applies the same 272K rule (the previous catalog already noted GPT-5.4's tier).",
    "Default efforts are published only for Luna (medium); other rows leave it unset, which sends no effort and lets the API choose.",
    "The web search tool (Responses only) costs $10 per 1,000 calls on every row, its search content billed as input tokens (pricing page; the older preview tool's other rates are not used). OpenAI has no web fetch tool.",
  ],
};

const O200K: TokenizerInfo = { family: "o200k", charsPerToken: 4 };

const effort = (efforts: ThinkingSpec["efforts"], extra: Partial<ThinkingSpec> = {}): ThinkingSpec => ({
  mode: "effort",
  efforts,
  defaultOn: true,
  ...extra,
});

/** OpenAI's GPT-6 price rule: over 272K input, input and cache rates x2 and output x1.5. */
function gpt6Cost(
  input: number,
  output: number,
  cacheRead: number,
  unknown?: ModelCost["unknown"],
): ModelCost {
  const cacheWrite = input * 1.25;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    tiers: [
      {
        aboveInputTokens: 272_000,
        input: input * 2,
        output: output * 1.5,
        cacheRead: cacheRead * 2,
        cacheWrite: cacheWrite * 2,
      },
    ],
    ...(unknown ? { unknown } : {}),
  };
}

/** The web search tool: $10 per 1,000 calls, its search content billed as input tokens (pricing page). */
const SERVER_TOOL_PRICES = { webSearch: 10 };

function gpt(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "input" | "tokenizer">): Model {
  return {
    api: "openai-responses",
    provider: "openai",
    apiKeyEnv: "OPENAI_API_KEY",
    input: ["text", "image"],
    tokenizer: O200K,
    serverTools: ["web_search"],
    ...row,
    cost: { ...row.cost, serverTools: SERVER_TOOL_PRICES },
  };
}

const at = (url: string) => ({ url, checked: CHECKED });
const FULL = ["low", "medium", "high", "xhigh", "max"] as const;

export const OPENAI_MODELS: readonly Model[] = [
  gpt({
    id: "gpt-6.2-astra",
    name: "GPT-6.2 Astra",
    reasoning: true,
    // The API rejects effort "none" (and "minimal") on GPT-6.2: reasoning cannot be turned off.
    thinking: effort(FULL),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: gpt6Cost(8, 40, 0.4),
    source: at(MODELS_PAGE),
  }),
  gpt({
    id: "gpt-6.2-sol",
    name: "GPT-6.2 Sol",
    reasoning: true,
    thinking: effort(FULL),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: gpt6Cost(2, 10, 0.1),
    source: at(page("gpt-6.2-sol")),
  }),
  gpt({
    id: "gpt-6.1-terra",
    name: "GPT-6.1 Terra",
    reasoning: true,
    thinking: effort(FULL, { off: "effort-none" }),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: gpt6Cost(1, 5, 0, ["cacheRead"]),
    source: at(MODELS_PAGE),
  }),
  gpt({
    id: "gpt-6-luna",
    name: "GPT-6 Luna",
    reasoning: true,
    thinking: effort(FULL, { off: "effort-none", defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: gpt6Cost(0.1, 0.5, 0.01),
    source: at(page("gpt-6-luna")),
  }),

  // ── Legacy: still callable, superseded ──────────────────────────────────────────────────────
  gpt({
    id: "gpt-5.5",
    name: "GPT-5.5",
    reasoning: true,
    thinking: effort(["low", "medium", "high", "xhigh"], { off: "effort-none" }),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: {
      input: 5,
      output: 30,
      cacheRead: 0,
      cacheWrite: 0,
      tiers: [{ aboveInputTokens: 272_000, input: 10, output: 45, cacheRead: 0, cacheWrite: 0 }],
      unknown: ["cacheRead"],
    },
    legacy: true,
    source: at("https://docs.oxen.ai/inference-api/reference/models/gpt-5-5-2026-04-23"),
  }),
  gpt({
    id: "gpt-5.4",
    name: "GPT-5.4",
    reasoning: true,
    thinking: effort(["low", "medium", "high", "xhigh"], { off: "effort-none" }),
    samplingParams: false,
    contextWindow: 1_050_000,
    maxOutput: 128_000,
    cost: {
      input: 2.5,
      output: 15,
      cacheRead: 0.25,
      cacheWrite: 0,
      tiers: [{ aboveInputTokens: 272_000, input: 5, output: 22.5, cacheRead: 0.5, cacheWrite: 0 }],
    },
    legacy: true,
    source: at(page("gpt-5.4")),
  }),
  gpt({
    id: "gpt-5.2",
    name: "GPT-5.2",
    reasoning: true,
    thinking: effort(["low", "medium", "high", "xhigh"], { off: "effort-none" }),
    samplingParams: false,
    contextWindow: 400_000,
    maxOutput: 128_000,
    cost: { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-5.2")),
  }),
  gpt({
    id: "gpt-5",
    name: "GPT-5",
    reasoning: true,
    thinking: effort(["minimal", "low", "medium", "high"], { defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 400_000,
    maxOutput: 128_000,
    cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-5")),
  }),
  gpt({
    id: "gpt-5-mini",
    name: "GPT-5 mini",
    reasoning: true,
    thinking: effort(["minimal", "low", "medium", "high"], { defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 400_000,
    maxOutput: 128_000,
    cost: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-5-mini")),
  }),
  gpt({
    id: "gpt-5-nano",
    name: "GPT-5 nano",
    reasoning: true,
    thinking: effort(["minimal", "low", "medium", "high"], { defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 400_000,
    maxOutput: 128_000,
    cost: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-5-nano")),
  }),
  gpt({
    id: "gpt-4.1",
    name: "GPT-4.1",
    reasoning: false,
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-4.1")),
  }),
  gpt({
    id: "gpt-4.1-mini",
    name: "GPT-4.1 mini",
    reasoning: false,
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    cost: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-4.1-mini")),
  }),
  gpt({
    id: "gpt-4.1-nano",
    name: "GPT-4.1 nano",
    reasoning: false,
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    cost: { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0 },
    legacy: true,
    source: at(page("gpt-4.1-nano")),
  }),
  gpt({
    id: "o3",
    name: "o3",
    reasoning: true,
    thinking: effort(["low", "medium", "high"], { defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 200_000,
    maxOutput: 100_000,
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    legacy: true,
    source: at(page("o3")),
  }),
  gpt({
    id: "o4-mini",
    name: "o4-mini",
    reasoning: true,
    thinking: effort(["low", "medium", "high"], { defaultEffort: "medium" }),
    samplingParams: false,
    contextWindow: 200_000,
    maxOutput: 100_000,
    cost: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
    legacy: true,
    source: at(page("o4-mini")),
  }),
];
