// Which model a session uses: explicit option > the session's last model > config > whichever
// provider has a key in the environment (on its catalog default). No choice possible → an error
// naming what to set. Ids the catalog does not know run on their provider's defaults, with a warning.
import { join } from "node:path";
import { createModelRegistry, type EndpointModel, type Model, type ModelRegistry } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import { displayPath } from "../config/paths.js";
import type { CodingAgentError } from "./types.js";

/** Providers tried, in order, when nothing names a model; each runs on its catalog default. */
const ENV_PROVIDERS = ["anthropic", "openai"] as const;

/** What to set when no model can be chosen, naming the config file of this Keel home. */
export function noModelMessage(home?: string): string {
  const file = home === undefined ? "~/.keel/config.json" : displayPath(join(home, "config.json"));
  return (
    "No model provider is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY, " +
    `or set "model": "provider/id" (with a custom provider under "providers") in ${file}.`
  );
}

/** The message for the default home (~/.keel); `noModelMessage(home)` names another home's file. */
export const NO_MODEL_MESSAGE = noModelMessage();

export interface ChosenModel {
  model: Model;
  /** Set when the id is not in the catalog (it runs on the provider's defaults). */
  warning?: string;
}

export function modelRegistry(providersConfig: unknown): Result<ModelRegistry, CodingAgentError> {
  const registry = createModelRegistry(
    providersConfig === undefined ? undefined : { providers: providersConfig },
  );
  return registry.mapErr((e) => ({
    type: "config" as const,
    message: `Invalid "providers" in config: ${e.message}`,
  }));
}

export function resolveModelRef(
  registry: ModelRegistry,
  ref: Model | string,
  endpoint: Readonly<Record<string, readonly EndpointModel[]>> = {},
): Result<ChosenModel, CodingAgentError> {
  if (typeof ref !== "string") return ok({ model: ref });
  return registry.resolve(ref, { endpoint }).mapErr((e) => {
    // A typo of a known id may also be a model released after the catalog: say how to check.
    const hint =
      e.type === "unknown_model" && e.suggestion
        ? ` If it is a new model, \`keel models --provider ${e.suggestion.split("/")[0]} --refresh\` checks what the provider lists.`
        : "";
    return { type: "model" as const, message: `${e.message}${hint}` };
  });
}

export function chooseModel(
  registry: ModelRegistry,
  candidates: (Model | string | undefined)[],
  env: NodeJS.ProcessEnv = process.env,
  endpoint: Readonly<Record<string, readonly EndpointModel[]>> = {},
  home?: string,
): Result<ChosenModel, CodingAgentError> {
  for (const candidate of candidates)
    if (candidate !== undefined) return resolveModelRef(registry, candidate, endpoint);
  for (const provider of ENV_PROVIDERS) {
    const model = registry.defaultModel(provider);
    if (model?.apiKeyEnv && env[model.apiKeyEnv]) return ok({ model });
  }
  return err({ type: "model", message: noModelMessage(home) });
}

/** The environment-picked default of each provider `chooseModel` tries, for help texts and tests. */
export function environmentDefaults(registry: ModelRegistry): { provider: string; ref: string }[] {
  return ENV_PROVIDERS.flatMap((provider) => {
    const model = registry.defaultModel(provider);
    return model ? [{ provider, ref: `${provider}/${model.id}` }] : [];
  });
}
