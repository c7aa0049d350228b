// Model descriptions: what the catalog and custom config say about a model (its API, limits,
// modalities, thinking, prices) and about a provider. Data, not code paths by model id.
import { type Static, Type } from "@sinclair/typebox";
import { ApiSchema, ServerToolNameSchema } from "./content.js";
import { literals, readonlyArray, strict } from "./shape.js";
import { ServerToolUsageSchema } from "./usage.js";

const Str = Type.String();
const Num = Type.Number();
const Opt = Type.Optional;

/** Prices of one long-context tier: the whole request is billed at it once its prompt passes the line. */
export const PriceTierSchema = strict({
  /** The tier applies when input + cache read + cache write tokens exceed this many. */
  aboveInputTokens: Num,
  input: Num,
  output: Num,
  cacheRead: Num,
  cacheWrite: Num,
});
export type PriceTier = Static<typeof PriceTierSchema>;

export const ModelCostSchema = strict({
  /** USD per million tokens. */
  input: Num,
  output: Num,
  cacheRead: Num,
  cacheWrite: Num,
  /** Long-context tiers (e.g. OpenAI's "over 272K input"), lowest line first. */
  tiers: Opt(Type.Array(PriceTierSchema)),
  /** Prices the vendor does not publish (or Keel could not verify): they count as 0. */
  unknown: Opt(Type.Array(literals(["input", "output", "cacheRead", "cacheWrite"]))),
  /** USD per 1,000 server-side tool calls (web searches), billed on top of tokens. */
  serverTools: Opt(ServerToolUsageSchema),
});
export type ModelCost = Static<typeof ModelCostSchema>;

/** Per-endpoint differences among OpenAI-compatible servers. Data, not code paths by model id. */
export const OpenAICompatSchema = strict({
  /** Field carrying streamed reasoning text in chat deltas (DeepSeek, Qwen: reasoning_content). */
  reasoningField: Opt(literals(["reasoning_content", "reasoning"])),
  /** "max_completion_tokens" (OpenAI) or "max_tokens" (most compatible servers). */
  maxTokensField: Opt(literals(["max_completion_tokens", "max_tokens"])),
  /** Whether the server accepts stream_options.include_usage. */
  supportsUsageInStreaming: Opt(Type.Boolean()),
  /** Whether the server accepts `reasoning_effort`. */
  supportsReasoningEffort: Opt(Type.Boolean()),
  /** Whether the "developer" role is accepted for system prompts. */
  supportsDeveloperRole: Opt(Type.Boolean()),
  /** Whether `prompt_cache_key` may be sent for cache routing. */
  supportsPromptCacheKey: Opt(Type.Boolean()),
  /**
   * How thinking is switched on and off: `thinking: {type: "enabled" | "disabled"}` (DeepSeek,
   * GLM) or `enable_thinking: true | false` (Qwen). Omitted: the server has no switch.
   */
  thinkingSwitch: Opt(literals(["thinking-type", "enable_thinking"])),
});
export type OpenAICompat = Static<typeof OpenAICompatSchema>;

/** Reasoning effort values across providers; `REASONING_EFFORTS` (@keel/ai) orders them weakest first. */
export const ReasoningEffortSchema = literals(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
export type ReasoningEffort = Static<typeof ReasoningEffortSchema>;

/** What a caller may ask for: thinking off, or an effort (mapped onto what the model accepts). */
export const ThinkingLevelSchema = Type.Union([Type.Literal("off"), ReasoningEffortSchema]);
export type ThinkingLevel = Static<typeof ThinkingLevelSchema>;

/** How a model thinks and which requests about it the provider accepts. */
export const ThinkingSpecSchema = strict({
  /**
   * How a request asks for thinking: "adaptive" (Anthropic adaptive thinking, depth steered by
   * `output_config.effort`), "budget" (Anthropic manual `budget_tokens`), "effort" (OpenAI
   * reasoning effort), "toggle" (an on/off switch, `compat.thinkingSwitch`, with
   * `reasoning_effort` when `efforts` lists any).
   */
  mode: literals(["adaptive", "budget", "effort", "toggle"]),
  /** Effort values the model accepts, weakest first ("none" is `off: "effort-none"`, not listed here). */
  efforts: readonlyArray(ReasoningEffortSchema),
  /** The effort the provider applies when a request names none; undefined when not published. */
  defaultEffort: Opt(ReasoningEffortSchema),
  /** Whether the model thinks when a request says nothing about thinking. */
  defaultOn: Type.Boolean(),
  /**
   * How thinking is turned off: leave the field out ("omit"), `{type: "disabled"}`, Anthropic's
   * `{type: "between_tools"}` (the lowest setting on Claude Sonnet 5.5), or effort `none`
   * (OpenAI). Undefined: it cannot be turned off; "off" then means the lowest effort.
   */
  off: Opt(literals(["omit", "disabled", "between_tools", "effort-none"])),
  /** Efforts that may not be combined with `off: "between_tools"` (the API answers 400). */
  offMaxEffort: Opt(ReasoningEffortSchema),
  /**
   * Anthropic preserved thinking: a thinking block is bound to the conversation before it, and
   * a request whose earlier messages changed is rejected unless it asks the API to drop the
   * stale blocks. Keel asks (see @keel/ai's providers/anthropic-request.ts).
   */
  prefixBound: Opt(Type.Boolean()),
  /** The short notes the model writes between tool calls arrive as thinking blocks (Claude Sonnet 5.5). */
  notesInThinking: Opt(Type.Boolean()),
});
export type ThinkingSpec = Static<typeof ThinkingSpecSchema>;

/** How many characters of text one token holds for a tokenizer family (for estimates only). */
export const TokenizerInfoSchema = strict({ family: Str, charsPerToken: Num });
export type TokenizerInfo = Static<typeof TokenizerInfoSchema>;

/** Where a catalog row's facts come from. */
export const ModelSourceSchema = strict({
  /** The vendor page (or, where the vendor's page was not available, the page the figures came from). */
  url: Str,
  /** The day the facts were checked, YYYY-MM-DD. */
  checked: Str,
});
export type ModelSource = Static<typeof ModelSourceSchema>;

export const ModelSchema = strict({
  id: Str,
  name: Str,
  api: ApiSchema,
  /** Provider id: anthropic, openai, deepseek, openrouter, ollama, … */
  provider: Str,
  baseUrl: Opt(Str),
  /** Environment variable holding the key for this provider. */
  apiKeyEnv: Opt(Str),
  reasoning: Type.Boolean(),
  /** How the model thinks, which efforts it takes and its default; see `resolveThinking` (@keel/ai). */
  thinking: Opt(ThinkingSpecSchema),
  /** False when the API rejects temperature / top_p / top_k (Claude 5 family, OpenAI reasoning models). */
  samplingParams: Opt(Type.Boolean()),
  input: Type.Array(literals(["text", "image"])),
  contextWindow: Num,
  maxOutput: Num,
  cost: ModelCostSchema,
  /** Tokenizer family for token estimates; default 4 characters a token. */
  tokenizer: Opt(TokenizerInfoSchema),
  /** Superseded by a newer model of the vendor: still callable, not recommended. */
  legacy: Opt(Type.Boolean()),
  /** A one-line fact worth showing (deprecation date, retirement, a price rule). */
  note: Opt(Str),
  source: Opt(ModelSourceSchema),
  headers: Opt(Type.Record(Str, Str)),
  compat: Opt(OpenAICompatSchema),
  /** Server-side tools the provider runs for this model (its own web search and fetch). */
  serverTools: Opt(readonlyArray(ServerToolNameSchema)),
});
export type Model = Static<typeof ModelSchema>;

/** A provider in the catalog: its defaults and where its rows were checked. Plain data. */
export const ProviderInfoSchema = strict({
  id: Str,
  name: Str,
  /** The model a run that names only this provider uses: the vendor's recommendation for agentic coding. */
  defaultModel: Str,
  /** Why that model, in one line (shown in README and `keel models`). */
  defaultReason: Str,
  /** A cheaper model of the same provider for side work (summaries, titles), where the vendor has one. */
  smallModel: Opt(Str),
  /** How the provider lists the models a key can use: GET …/models in Anthropic's or OpenAI's shape. */
  modelsEndpoint: Opt(literals(["anthropic", "openai"])),
  /** The day the rows were checked against the sources, YYYY-MM-DD. */
  checked: Str,
  /** The pages the rows were checked against, vendor pages first. */
  sources: Type.Array(Str),
  /** What the sources did not settle, and how the rows handle it. */
  notes: Type.Array(Str),
});
export type ProviderInfo = Static<typeof ProviderInfoSchema>;

/** A model as a provider's models endpoint lists it (GET …/models); limits where the endpoint says. */
export const EndpointModelSchema = strict({
  id: Str,
  name: Opt(Str),
  contextWindow: Opt(Num),
  maxOutput: Opt(Num),
  /** RFC 3339, when the endpoint gives one. */
  createdAt: Opt(Str),
});
export type EndpointModel = Static<typeof EndpointModelSchema>;
