// Custom providers and models from config (Ollama, vLLM, LM Studio, a company proxy…), validated
// and merged over the built-in catalog into one registry. Defaults for omitted fields live here.
import { ApiSchema, ModelSchema, OpenAICompatSchema } from "@keel/protocol";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { err, ok, type Result } from "neverthrow";
import { createRegistryFromModels, type ModelRegistry, modelRef, UNKNOWN_MODEL_DEFAULTS } from "./models.js";
import { BUILTIN_MODELS } from "./models-data.js";
import type { Api, Model, ModelCost, OpenAICompat } from "./types.js";
import { describeSchemaErrors, formatIssues, type SchemaIssue } from "./validation.js";

// The fields a config may set are the model description's own (@keel/protocol), with the limits a
// hand-written file needs on top; `satisfies` keeps every key a real field of Model or its parts.

/** A provider's compat, minus `thinkingSwitch` (it comes only with a catalog row's thinking spec). */
const CompatSchema = Type.Omit(OpenAICompatSchema, ["thinkingSwitch"], { additionalProperties: false });

const Price = Type.Number({ minimum: 0 });

const CustomModelSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ minLength: 1 })),
    contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
    maxOutput: Type.Optional(Type.Integer({ minimum: 1 })),
    reasoning: Type.Optional(Type.Boolean()),
    input: Type.Optional(
      Type.Array(ModelSchema.properties.input.items, {
        minItems: 1,
        uniqueItems: true,
      }),
    ),
    cost: Type.Optional(
      Type.Object(
        {
          input: Type.Optional(Price),
          output: Type.Optional(Price),
          cacheRead: Type.Optional(Price),
          cacheWrite: Type.Optional(Price),
        } satisfies { [K in keyof ModelCost]?: TSchema },
        { additionalProperties: false },
      ),
    ),
  } satisfies { [K in keyof Model]?: TSchema },
  { additionalProperties: false },
);

const CustomProviderSchema = Type.Object(
  {
    api: Type.Optional(ApiSchema),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    apiKeyEnv: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    compat: Type.Optional(CompatSchema),
    models: Type.Optional(Type.Array(CustomModelSchema)),
  } satisfies { [K in keyof Model | "models"]?: TSchema },
  { additionalProperties: false },
);

/** The `models` section of a Keel config. */
export const ModelsConfigSchema = Type.Object(
  { providers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), CustomProviderSchema)) },
  { additionalProperties: false },
);

export type ModelsConfig = Static<typeof ModelsConfigSchema>;
type CustomProvider = Static<typeof CustomProviderSchema>;
type CustomModel = Static<typeof CustomModelSchema>;

export interface ModelConfigError {
  /** Same tag as AiError's config variant, so it can travel as one. */
  type: "config";
  message: string;
  issues: SchemaIssue[];
}

/** Used for fields a new custom model leaves out. Local servers are free, hence zero prices. */
export const CUSTOM_MODEL_DEFAULTS = {
  ...UNKNOWN_MODEL_DEFAULTS,
  reasoning: false,
  input: ["text"] as ("text" | "image")[],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } as ModelCost,
};

/** What most OpenAI-compatible servers (Ollama, vLLM, LM Studio) accept. */
export const CUSTOM_COMPAT_DEFAULTS: OpenAICompat = {
  maxTokensField: "max_tokens",
  supportsUsageInStreaming: true,
  supportsReasoningEffort: false,
  supportsDeveloperRole: false,
  supportsPromptCacheKey: false,
};

/**
 * The built-in catalog merged with `config` (a parsed `models` config section, or undefined).
 * - A provider name not in the catalog is new: it needs `api` and at least one model.
 * - A provider name in the catalog has its provider-level fields (api, baseUrl, apiKeyEnv,
 *   headers, compat) applied to all its built-in models — e.g. route `anthropic` through a proxy.
 * - A model id that exists for that provider overrides the built-in entry field by field;
 *   a new id starts from the defaults above.
 */
export function createModelRegistry(config?: unknown): Result<ModelRegistry, ModelConfigError> {
  if (config === undefined) return ok(createRegistryFromModels(BUILTIN_MODELS));
  const shapeIssues = describeSchemaErrors(ModelsConfigSchema, config);
  if (shapeIssues.length > 0) return err(configError(shapeIssues));
  const providers = (config as ModelsConfig).providers ?? {};
  const meaningIssues = Object.entries(providers).flatMap(([name, p]) => checkProvider(name, p));
  if (meaningIssues.length > 0) return err(configError(meaningIssues));
  return ok(createRegistryFromModels(merge(providers)));
}

function configError(issues: SchemaIssue[]): ModelConfigError {
  const message = formatIssues("Invalid models config", issues.map(relabelRoot));
  return {
    type: "config",
    message: `${message}. Fix these fields in the "models" section of your config.`,
    issues,
  };
}

function relabelRoot(issue: SchemaIssue): SchemaIssue {
  return issue.path === "/" ? { ...issue, path: "(models section)" } : issue;
}

const builtinProviders = new Set(BUILTIN_MODELS.map((m) => m.provider));

/** Rules the schema cannot say: they depend on the catalog or on several fields at once. */
function checkProvider(name: string, provider: CustomProvider): SchemaIssue[] {
  const at = `/providers/${escapePointer(name)}`;
  const issues: SchemaIssue[] = [];
  if (!builtinProviders.has(name)) {
    if (!provider.api) {
      issues.push({
        path: `${at}/api`,
        message: `is required for a provider that is not built in (one of "anthropic-messages","openai-completions","openai-responses")`,
      });
    }
    if (!provider.models || provider.models.length === 0) {
      issues.push({
        path: `${at}/models`,
        message: "must list at least one model for a provider that is not built in",
      });
    }
  }
  const seen = new Set<string>();
  (provider.models ?? []).forEach((model, i) => {
    if (seen.has(model.id))
      issues.push({ path: `${at}/models/${i}/id`, message: `duplicates "${model.id}"` });
    seen.add(model.id);
    const base = builtinModel(name, model.id);
    const contextWindow = model.contextWindow ?? base?.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow;
    if (model.maxOutput !== undefined && model.maxOutput > contextWindow) {
      issues.push({
        path: `${at}/models/${i}/maxOutput`,
        message: `must be <= the context window (${contextWindow}) (got ${model.maxOutput})`,
      });
    }
  });
  return issues;
}

function merge(providers: Record<string, CustomProvider>): Model[] {
  const overridden = BUILTIN_MODELS.map((m) => {
    const p = providers[m.provider];
    return p ? withProviderFields(m, p) : m;
  });
  const result = new Map(overridden.map((m) => [modelRef(m), m]));
  for (const [name, provider] of Object.entries(providers)) {
    for (const custom of provider.models ?? []) {
      const base = result.get(`${name}/${custom.id}`);
      const model = base ? withModelFields(base, custom) : newModel(name, provider, custom);
      result.set(modelRef(model), model);
    }
  }
  return [...result.values()];
}

function withProviderFields(model: Model, p: CustomProvider): Model {
  const out: Model = { ...model };
  if (p.api) out.api = p.api;
  if (p.baseUrl) out.baseUrl = p.baseUrl;
  if (p.apiKeyEnv) out.apiKeyEnv = p.apiKeyEnv;
  if (p.headers) out.headers = { ...model.headers, ...p.headers };
  if (out.api === "openai-completions")
    out.compat = { ...CUSTOM_COMPAT_DEFAULTS, ...model.compat, ...p.compat };
  else if (p.compat) out.compat = { ...model.compat, ...p.compat };
  return out;
}

function withModelFields(model: Model, m: CustomModel): Model {
  const contextWindow = m.contextWindow ?? model.contextWindow;
  return {
    ...model,
    name: m.name ?? model.name,
    contextWindow,
    // A smaller window given without maxOutput shrinks maxOutput with it.
    maxOutput: m.maxOutput ?? Math.min(model.maxOutput, contextWindow),
    reasoning: m.reasoning ?? model.reasoning,
    input: m.input ?? model.input,
    cost: { ...model.cost, ...m.cost },
  };
}

function newModel(provider: string, p: CustomProvider, m: CustomModel): Model {
  // A new model under a built-in provider inherits that provider's endpoint and key.
  const template = BUILTIN_MODELS.find((b) => b.provider === provider);
  const api: Api | undefined = p.api ?? template?.api;
  if (!api) throw new Error(`bug: provider ${provider} reached merge without an api`);
  const contextWindow = m.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow;
  const model: Model = {
    id: m.id,
    name: m.name ?? m.id,
    api,
    provider,
    reasoning: m.reasoning ?? CUSTOM_MODEL_DEFAULTS.reasoning,
    input: m.input ?? [...CUSTOM_MODEL_DEFAULTS.input],
    contextWindow,
    maxOutput: m.maxOutput ?? Math.min(CUSTOM_MODEL_DEFAULTS.maxOutput, contextWindow),
    cost: { ...CUSTOM_MODEL_DEFAULTS.cost, ...m.cost },
  };
  const baseUrl = p.baseUrl ?? template?.baseUrl;
  if (baseUrl) model.baseUrl = baseUrl;
  const apiKeyEnv = p.apiKeyEnv ?? template?.apiKeyEnv;
  if (apiKeyEnv) model.apiKeyEnv = apiKeyEnv;
  const headers = p.headers ?? template?.headers;
  if (headers) model.headers = { ...headers };
  if (api === "openai-completions") {
    model.compat = { ...CUSTOM_COMPAT_DEFAULTS, ...template?.compat, ...p.compat };
  } else if (p.compat) {
    model.compat = { ...p.compat };
  }
  return model;
}

function builtinModel(provider: string, id: string): Model | undefined {
  return BUILTIN_MODELS.find((m) => m.provider === provider && m.id === id);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
