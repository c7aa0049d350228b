// Model lookup: a registry over a list of models, and the built-in one over the catalog.
// Lookups return Results whose errors name what was asked for and what exists.
import { err, ok, type Result } from "neverthrow";
import { BUILTIN_MODELS } from "./models-data.js";
import type { Model } from "./types.js";

export type ModelLookupError =
  | { type: "unknown_model"; message: string; query: string; known: string[] }
  | { type: "ambiguous_model"; message: string; query: string; candidates: string[] };

export interface ModelRegistry {
  /** Exact lookup by provider id and model id. */
  get(provider: string, id: string): Result<Model, ModelLookupError>;
  /**
   * "provider/id" or a bare "id". Model ids may themselves contain "/" (OpenRouter's
   * "anthropic/claude-sonnet-4.6"), so "provider/id" is tried first, then the whole string as an id.
   * A bare id offered by several providers is an `ambiguous_model` error, never a silent pick.
   */
  find(ref: string): Result<Model, ModelLookupError>;
  /** All models, or one provider's, in catalog order. */
  list(provider?: string): Model[];
  providers(): string[];
}

/** How errors and listings name a model. */
export function modelRef(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

/** Names listed in an "unknown model" message before the rest are counted. */
const MAX_LISTED = 40;

export function createRegistryFromModels(models: readonly Model[]): ModelRegistry {
  const frozen = models.map(freezeModel);
  const byRef = new Map(frozen.map((m) => [modelRef(m), m]));
  const providers = [...new Set(frozen.map((m) => m.provider))];

  const get = (provider: string, id: string): Result<Model, ModelLookupError> => {
    const model = byRef.get(`${provider}/${id}`);
    if (model) return ok(model);
    if (!providers.includes(provider)) {
      return err(unknown(`${provider}/${id}`, `unknown provider "${provider}"`, providers));
    }
    const ids = frozen.filter((m) => m.provider === provider).map((m) => m.id);
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
    return err(unknown(ref, `unknown model "${ref}"`, frozen.map(modelRef)));
  };

  return {
    get,
    find,
    list: (provider) =>
      provider === undefined ? [...frozen] : frozen.filter((m) => m.provider === provider),
    providers: () => [...providers],
  };
}

function unknown(query: string, what: string, known: string[]): ModelLookupError {
  const listed = known.slice(0, MAX_LISTED).join(", ");
  const more = known.length > MAX_LISTED ? `, … (${known.length - MAX_LISTED} more)` : "";
  return { type: "unknown_model", message: `${what}; known: ${listed}${more}`, query, known };
}

/** Registry entries are shared by every caller, so nobody may edit them in place. */
function freezeModel(model: Model): Model {
  return Object.freeze({
    ...model,
    input: Object.freeze([...model.input]) as Model["input"],
    cost: Object.freeze({ ...model.cost }),
    ...(model.compat ? { compat: Object.freeze({ ...model.compat }) } : {}),
    ...(model.headers ? { headers: Object.freeze({ ...model.headers }) } : {}),
  });
}

const builtin = createRegistryFromModels(BUILTIN_MODELS);

/** The built-in registry (no custom models). */
export function builtinModelRegistry(): ModelRegistry {
  return builtin;
}

/** A built-in model by provider and id, e.g. `getModel("anthropic", "claude-sonnet-4-6")`. */
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
