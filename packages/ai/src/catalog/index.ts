// The built-in catalog: every provider's rows and provider facts, in the order Keel lists them.
// The facts themselves live in one file per provider, each with its sources and check date.
import type { Model, ProviderInfo } from "../types.js";
import { ANTHROPIC, ANTHROPIC_MODELS } from "./anthropic.js";
import { DEEPSEEK, DEEPSEEK_MODELS } from "./deepseek.js";
import { MOONSHOT, MOONSHOT_MODELS } from "./moonshot.js";
import { OPENAI, OPENAI_MODELS } from "./openai.js";
import { OPENROUTER, OPENROUTER_MODELS } from "./openrouter.js";
import { DASHSCOPE, DASHSCOPE_MODELS } from "./qwen.js";
import { ZAI, ZAI_MODELS } from "./zai.js";

export const BUILTIN_PROVIDERS: readonly ProviderInfo[] = [
  ANTHROPIC,
  OPENAI,
  DEEPSEEK,
  DASHSCOPE,
  MOONSHOT,
  ZAI,
  OPENROUTER,
];

export const BUILTIN_MODELS: readonly Model[] = [
  ...ANTHROPIC_MODELS,
  ...OPENAI_MODELS,
  ...DEEPSEEK_MODELS,
  ...DASHSCOPE_MODELS,
  ...MOONSHOT_MODELS,
  ...ZAI_MODELS,
  ...OPENROUTER_MODELS,
];
