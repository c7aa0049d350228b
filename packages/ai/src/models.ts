// Model lookup: a registry over a list of models (and provider facts), and the built-in one over
// the catalog. Lookups return Results whose errors name what was asked for and what exists.
import { err, ok, type Result } from "neverthrow";
import { closestName } from "./closest.js";
import { BUILTIN_MODELS, BUILTIN_PROVIDERS } from "./models-data.js";
import type { EndpointModel, Model, ProviderInfo } from "./types.js";

export type ModelLookupError =
  | {
      type: "unknown_model";
      message: string;
      query: string;
      known: string[];
      /** A known "provider/id" the query is one typo away from. */
      suggestion?: string;
    }
  | { type: "ambiguous_model"; message: string; query: string; candidates: string[] };

/** A model for a run, and what the user should be told about the choice. */
export interface ResolvedModel {
  model: Model;
  /** Set when the id is not in the catalog and runs on the provider's defaults. */
  warning?: string;
}

export interface ResolveOptions {
  /** What providers' models endpoints listed (a discovery cache), by provider id. */
  endpoint?: Readonly<Record<string, readonly EndpointModel[] | undefined>>;
}

export interface ModelRegistry {
  /** Exact lookup by provider id and model id. */
  get(provider: string, id: string): Result<Model, ModelLookupError>;
  /**
   * "provider/id" or a bare "id". Model ids may themselves contain "/" (OpenRouter's
   * "anthropic/claude-sonnet-4.6"), so "provider/id" is tried first, then the whole string as an id.
   * A bare id offered by several providers is an `ambiguous_model` error, never a silent pick.
   */
  find(ref: string): Result<Model, ModelLookupError>;
  /**
   * Like find, but an id the catalog does not know is accepted for a known provider: it runs on
   * that provider's endpoint, key and defaults, with a warning. An id one typo away from a known
   * one (and not listed by the provider's endpoint) is an error that suggests the known id.
   */
  resolve(ref: string, options?: ResolveOptions): Result<ResolvedModel, ModelLookupError>;
  /** All models, or one provider's, in catalog order. */
  list(provider?: string): Model[];
  providers(): string[];
  /** Catalog facts of a built-in provider (defaults, sources); undefined for custom providers. */
  providerInfo(provider: string): ProviderInfo | undefined;
  /** The provider's default model: its catalog default, else its first model. */
  defaultModel(provider: string): Model | undefined;
  /** The provider's model for cheap side work, if the catalog names one. */
  smallModel(provider: string): Model | undefined;
}

/** How errors and listings name a model. */
export function modelRef(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

/** Names listed in an "unknown model" message before the rest are counted. */
const MAX_LISTED = 40;

/**
 * Limits of a model nobody described: an id only an endpoint lists, or a custom model that
 * leaves them out (CUSTOM_MODEL_DEFAULTS). Small enough for any server to accept.
 */
export const UNKNOWN_MODEL_DEFAULTS = {
  contextWindow: 128_000,
  maxOutput: 16_384,
} as const;

/**
 * A model for an id the catalog does not know, on the transport of a known model of the same
 * provider. Limits come from the endpoint's listing where it gives them.
 */
export function modelForUnknownId(template: Model, id: string, listed?: EndpointModel): Model {
  const contextWindow = listed?.contextWindow ?? UNKNOWN_MODEL_DEFAULTS.contextWindow;
  const maxOutput = Math.min(listed?.maxOutput ?? UNKNOWN_MODEL_DEFAULTS.maxOutput, contextWindow);
  const model: Model = {
    id,
    name: listed?.name ?? id,
    api: template.api,
    provider: template.provider,
    // Thinking settings differ per model; an unknown one gets none sent, which every model accepts.
    reasoning: false,
    input: ["text"],
    contextWindow,
    maxOutput,
    cost: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      unknown: ["input", "output", "cacheRead", "cacheWrite"],
    },
  };
  if (template.baseUrl) model.baseUrl = template.baseUrl;
  if (template.apiKeyEnv) model.apiKeyEnv = template.apiKeyEnv;
  // Server-side tools are the provider's, not one model's.
  if (template.serverTools) model.serverTools = template.serverTools;
  if (template.headers) model.headers = { ...template.headers };
  if (template.compat) model.compat = { ...template.compat };
  return model;
}

export function createRegistryFromModels(
  models: readonly Model[],
  providerInfos: readonly ProviderInfo[] = BUILTIN_PROVIDERS,
): ModelRegistry {
  const frozen = models.map(freezeModel);
  const byRef = new Map(frozen.map((m) => [modelRef(m), m]));
  const providers = [...new Set(frozen.map((m) => m.provider))];
  const infos = new Map(providerInfos.map((p) => [p.id, p]));
  const ofProvider = (provider: string) => frozen.filter((m) => m.provider === provider);

  const get = (provider: string, id: string): Result<Model, ModelLookupError> => {
    const model = byRef.get(`${provider}/${id}`);
    if (model) return ok(model);
    if (!providers.includes(provider)) {
      return err(unknown(`${provider}/${id}`, `unknown provider "${provider}"`, providers));
    }
    const ids = ofProvider(provider).map((m) => m.id);
    return err(unknown(`${provider}/${id}`, `unknown model "${id}" for provider ${provider}`, ids));
  };

  const find = (ref: string): Result<Model, ModelLookupError> => {
    const exact = byRef.get(ref);
    if (exact) return ok(exact);
    const matches = frozen.filter((m) => m.id === ref);
    if (matches.length === 1 && matches[0]) return ok(matches[0]);
    if (matches.length > 1) {
      const candidates = matches.map(modelRef);
      return err({
        type: "ambiguous_model",
        message: `model "${ref}" is offered by several providers: ${candidates.join(", ")}; use "provider/id".`,
        query: ref,
        candidates,
      });
    }
    const slash = ref.indexOf("/");
    if (slash > 0) return get(ref.slice(0, slash), ref.slice(slash + 1));
    const refs = frozen.map(modelRef);
    const near = closestName(
      ref,
      frozen.map((m) => m.id),
    );
    const suggestion = near ? refs[frozen.findIndex((m) => m.id === near)] : undefined;
    return err(unknown(ref, `unknown model "${ref}"`, refs, suggestion));
  };

  const resolve = (ref: string, options: ResolveOptions = {}): Result<ResolvedModel, ModelLookupError> => {
    const found = find(ref);
    if (found.isOk()) return ok({ model: found.value });
    const slash = ref.indexOf("/");
    const provider = slash > 0 ? ref.slice(0, slash) : "";
    const template = slash > 0 ? defaultModel(provider) : undefined;
    if (!template || found.error.type !== "unknown_model") return err(found.error);
    const id = ref.slice(slash + 1);
    const listed = options.endpoint?.[provider]?.find((m) => m.id === id);
    const known = ofProvider(provider).map((m) => m.id);
    const near = listed ? undefined : closestName(id, known);
    if (near) {
      const suggestion = `${provider}/${near}`;
      return err(
        unknown(
          ref,
          `unknown model "${id}" for provider ${provider}; did you mean ${suggestion}?`,
          known,
          suggestion,
        ),
      );
    }
    const model = modelForUnknownId(template, id, listed);
    const where = listed ? `listed by ${provider}'s models endpoint but not` : "not";
    const warning =
      `${ref} is ${where} in Keel's model catalog; running it with ${provider}'s defaults ` +
      `(${model.contextWindow.toLocaleString("en-US")}-token window, ${model.maxOutput.toLocaleString("en-US")} output, no thinking settings). ` +
      "Its prices are unknown, so cost shows $0.";
    return ok({ model, warning });
  };

  const defaultModel = (provider: string): Model | undefined => {
    const id = infos.get(provider)?.defaultModel;
    return (id ? byRef.get(`${provider}/${id}`) : undefined) ?? ofProvider(provider)[0];
  };

  return {
    get,
    find,
    resolve,
    list: (provider) => (provider === undefined ? [...frozen] : ofProvider(provider)),
    providers: () => [...providers],
    providerInfo: (provider) => infos.get(provider),
    defaultModel,
    smallModel: (provider) => {
      const id = infos.get(provider)?.smallModel;
      return id ? byRef.get(`${provider}/${id}`) : undefined;
    },
  };
}

function unknown(query: string, what: string, known: string[], suggestion?: string): ModelLookupError {
  const listed = known.slice(0, MAX_LISTED).join(", ");
  const more = known.length > MAX_LISTED ? `, … (${known.length - MAX_LISTED} more)` : "";
  const hint = suggestion && !what.includes("did you mean") ? ` (did you mean ${suggestion}?)` : "";
  return {
    type: "unknown_model",
    message: `${what}${hint}; known: ${listed}${more}`,
    query,
    known,
    ...(suggestion ? { suggestion } : {}),
  };
}

/** Registry entries are shared by every caller, so nobody may edit them in place. */
function freezeModel(model: Model): Model {
  return Object.freeze({
    ...model,
    input: Object.freeze([...model.input]) as Model["input"],
    cost: Object.freeze({ ...model.cost }),
    ...(model.compat ? { compat: Object.freeze({ ...model.compat }) } : {}),
    ...(model.thinking ? { thinking: Object.freeze({ ...model.thinking }) } : {}),
    ...(model.headers ? { headers: Object.freeze({ ...model.headers }) } : {}),
  });
}

const builtin = createRegistryFromModels(BUILTIN_MODELS);

/** The built-in registry (no custom models). */
export function builtinModelRegistry(): ModelRegistry {
  return builtin;
}

/** A built-in model by provider and id, e.g. `getModel("anthropic", "claude-opus-5-5")`. */
export function getModel(provider: string, id: string): Result<Model, ModelLookupError> {
  return builtin.get(provider, id);
}

/** A built-in model by "provider/id" or bare id. */
export function findModel(ref: string): Result<Model, ModelLookupError> {
  return builtin.find(ref);
}

export function listModels(provider?: string): Model[] {
  return builtin.list(provider);
}

export function listProviders(): string[] {
  return builtin.providers();
}

/** The provider's default model in the built-in catalog (its recommended agentic-coding model). */
export function defaultModelFor(provider: string): Model | undefined {
  return builtin.defaultModel(provider);
}

/** The provider's model for cheap side work in the built-in catalog, if it names one. */
export function smallModelFor(provider: string): Model | undefined {
  return builtin.smallModel(provider);
}
