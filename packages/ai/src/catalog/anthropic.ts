// Anthropic's models on the Messages API, as rows, with where each fact was checked.
// Prices are USD per million tokens; cacheWrite is the 5-minute write.
import type { Model, ProviderInfo, ThinkingSpec, TokenizerInfo } from "../types.js";

const CHECKED = "2026-12-01";
const OVERVIEW = "https://platform.claude.com/docs/en/about-claude/models/overview";
const PRICING = "https://platform.claude.com/docs/en/about-claude/pricing";

export const ANTHROPIC: ProviderInfo = {
  id: "anthropic",
  name: "Anthropic",
  defaultModel: "claude-opus-5-5",
  defaultReason:
    "Anthropic's models overview says to start with Claude Opus 5.5 for most workloads; it is the model it names for long-running agentic coding.",
  smallModel: "claude-haiku-5-5",
  modelsEndpoint: "anthropic",
  checked: CHECKED,
  sources: [
    OVERVIEW,
    PRICING,
    "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5",
    "https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide",
    "https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2",
    "https://platform.claude.com/docs/en/models/haiku-5-5/overview",
    "https://platform.claude.com/docs/en/build-with-claude/thinking",
    "https://platform.claude.com/docs/en/build-with-claude/preserved-thinking",
    "@anthropic-ai/sdk 1.14.0 (2026-11-24): Model ids, ThinkingConfig types, deprecated-model data",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-fetch-tool",
  ],
  notes: [
    "The issue named Fable 5.1, Opus 5.5 and Sonnet 5.5 as current. The newest stored overview also lists Claude Fable 5.2 (released 2026-11-09) and Claude Haiku 5.5, so Fable 5.1 is marked legacy like Fable 5.",
    "Opus 5.5's cache read ($0.20, 0.05x) and Sonnet 5.5's cache read cut to $0.10 (2026-10-07) come from price trackers quoting the pricing page (synaps docs, PromptFuel v1.0.23, Token Stats 0.3.2); the stored overview snapshot for Sonnet 5.5 still shows $0.20.",
    "Fable 5.2's cache prices ($0.20 read, $10 5-minute write) come from a relay reselling at list price (docs.laozhang.ai, 2026-11-10); 5-minute writes elsewhere are Anthropic's 1.25x input rule.",
    "Haiku 5.5 bills prompts over 100K tokens at 5x: its tier holds the overview's figures; the tier's cache read ($0.05) is that 5x rule applied to $0.01.",
    "Effort lists: Claude 5 models take low, medium, high, xhigh and max (SDK OutputConfig); Keel sends low, medium and high to the 4.6-4.8 adaptive models, as before.",
    "Server tools: web search ($10 per 1,000 searches, plus tokens) and web fetch (tokens only) on every row, from the pricing page and the web search / web fetch tool pages.",
    "Preserved thinking (prefix-bound blocks) is documented for Fable 5.1 and later; Keel treats every model released since (Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5.2) the same, since asking the API to drop stale blocks changes nothing else.",
  ],
};

/** Claude Opus 4.7 and later count about 30% more tokens for the same text (Haiku 5.5 overview). */
const NEW_TOKENIZER: TokenizerInfo = { family: "claude-2026", charsPerToken: 3.1 };
const OLD_TOKENIZER: TokenizerInfo = { family: "claude", charsPerToken: 4 };

const CLAUDE_5_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/** Adaptive thinking that is always on (Fable, Opus 5.5): "off" means the lowest effort. */
const alwaysOn = (defaultEffort: "medium" | "high"): ThinkingSpec => ({
  mode: "adaptive",
  efforts: CLAUDE_5_EFFORTS,
  defaultEffort,
  defaultOn: true,
  prefixBound: true,
});

/** Claude 4.6-4.8: adaptive when asked, no thinking when the request says nothing. */
const ADAPTIVE_ON_REQUEST: ThinkingSpec = {
  mode: "adaptive",
  efforts: ["low", "medium", "high"],
  defaultOn: false,
  off: "omit",
};

/** Claude 4.5 and earlier: manual extended thinking with a token budget. */
const BUDGET: ThinkingSpec = {
  mode: "budget",
  efforts: ["minimal", "low", "medium", "high"],
  defaultOn: false,
  off: "omit",
};

/** Web search is billed per search on top of tokens; web fetch costs its tokens only (pricing page). */
const SERVER_TOOL_PRICES = { webSearch: 10 };

function claude(row: Omit<Model, "api" | "provider" | "apiKeyEnv" | "input" | "reasoning">): Model {
  return {
    api: "anthropic-messages",
    provider: "anthropic",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    reasoning: true,
    input: ["text", "image"],
    serverTools: ["web_search", "web_fetch"],
    ...row,
    cost: { ...row.cost, serverTools: SERVER_TOOL_PRICES },
  };
}

const at = (url: string) => ({ url, checked: CHECKED });

export const ANTHROPIC_MODELS: readonly Model[] = [
  claude({
    id: "claude-opus-5-5",
    name: "Claude Opus 5.5",
    thinking: alwaysOn("medium"),
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
    tokenizer: NEW_TOKENIZER,
    source: at(OVERVIEW),
  }),
  claude({
    id: "claude-sonnet-5-5",
    name: "Claude Sonnet 5.5",
    thinking: {
      mode: "adaptive",
      efforts: CLAUDE_5_EFFORTS,
      defaultEffort: "high",
      defaultOn: true,
      off: "between_tools",
      offMaxEffort: "high",
      prefixBound: true,
      notesInThinking: true,
    },
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
    tokenizer: NEW_TOKENIZER,
    source: at("https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5"),
  }),
  claude({
    id: "claude-fable-5-2",
    name: "Claude Fable 5.2",
    thinking: alwaysOn("high"),
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 8, output: 40, cacheRead: 0.2, cacheWrite: 10 },
    tokenizer: NEW_TOKENIZER,
    source: at("https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2"),
  }),
  claude({
    id: "claude-haiku-5-5",
    name: "Claude Haiku 5.5",
    // Adaptive with a default effort; the stored pages do not say how it is turned off.
    thinking: {
      mode: "adaptive",
      efforts: CLAUDE_5_EFFORTS,
      defaultEffort: "medium",
      defaultOn: true,
      prefixBound: true,
    },
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: {
      input: 0.1,
      output: 0.5,
      cacheRead: 0.01,
      cacheWrite: 0.125,
      tiers: [{ aboveInputTokens: 100_000, input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625 }],
    },
    tokenizer: NEW_TOKENIZER,
    source: at("https://platform.claude.com/docs/en/models/haiku-5-5/overview"),
  }),

  // ── Legacy: still callable, superseded ──────────────────────────────────────────────────────
  claude({
    id: "claude-fable-5-1",
    name: "Claude Fable 5.1",
    thinking: alwaysOn("high"),
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-opus-5",
    name: "Claude Opus 5",
    thinking: { mode: "adaptive", efforts: CLAUDE_5_EFFORTS, defaultEffort: "high", defaultOn: true },
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    note: "Retires not sooner than 2027-07-24.",
    source: at("https://platform.claude.com/docs/en/models/opus-5/overview"),
  }),
  claude({
    id: "claude-sonnet-5",
    name: "Claude Sonnet 5",
    thinking: {
      mode: "adaptive",
      efforts: CLAUDE_5_EFFORTS,
      defaultEffort: "high",
      defaultOn: true,
      off: "disabled",
    },
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    source: at("https://platform.claude.com/docs/en/models/sonnet-5/overview"),
  }),
  claude({
    id: "claude-fable-5",
    name: "Claude Fable 5",
    thinking: { ...alwaysOn("high"), prefixBound: false },
    samplingParams: false,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    source: at("https://platform.claude.com/docs/en/models/fable-5/overview"),
  }),
  claude({
    id: "claude-opus-4-8",
    name: "Claude Opus 4.8",
    thinking: ADAPTIVE_ON_REQUEST,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-opus-4-7",
    name: "Claude Opus 4.7",
    thinking: ADAPTIVE_ON_REQUEST,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    tokenizer: NEW_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-opus-4-6",
    name: "Claude Opus 4.6",
    thinking: ADAPTIVE_ON_REQUEST,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-sonnet-4-6",
    name: "Claude Sonnet 4.6",
    thinking: ADAPTIVE_ON_REQUEST,
    contextWindow: 1_000_000,
    maxOutput: 128_000,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-opus-4-5",
    name: "Claude Opus 4.5",
    thinking: BUDGET,
    contextWindow: 200_000,
    maxOutput: 64_000,
    cost: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    note: "Deprecated: end of life 2027-01-22.",
    source: at(PRICING),
  }),
  claude({
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    thinking: BUDGET,
    // 1M only behind the context-1m beta header; 200K is what every request gets.
    contextWindow: 200_000,
    maxOutput: 64_000,
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    note: "Deprecated: end of life 2026-11-30.",
    source: at(PRICING),
  }),
  claude({
    id: "claude-haiku-4-5",
    name: "Claude Haiku 4.5",
    thinking: BUDGET,
    contextWindow: 200_000,
    maxOutput: 64_000,
    cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    source: at(PRICING),
  }),
  claude({
    id: "claude-opus-4-1",
    name: "Claude Opus 4.1",
    thinking: BUDGET,
    contextWindow: 200_000,
    maxOutput: 32_000,
    cost: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    tokenizer: OLD_TOKENIZER,
    legacy: true,
    note: "Retired on the Claude API (still on Bedrock and Google Cloud).",
    source: at(PRICING),
  }),
];
