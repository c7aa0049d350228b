// Which model a session uses: explicit option > the session's last model > config > whichever
// provider has a key in the environment. No choice possible → an error naming what to set.
import { createModelRegistry, type Model, type ModelRegistry } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import type { CodingAgentError } from "./types.js";

/** Providers tried, in order, when nothing names a model. Their default model ids live here. */
const ENV_DEFAULTS: { env: string; ref: string }[] = [
  { env: "ANTHROPIC_API_KEY", ref: "anthropic/claude-sonnet-4-6" },
  { env: "OPENAI_API_KEY", ref: "openai/gpt-5" },
];

export const NO_MODEL_MESSAGE =
  "No model provider is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY, " +
  'or set "model": "provider/id" (with a custom provider under "providers") in ~/.keel/config.json.';

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
): Result<Model, CodingAgentError> {
  if (typeof ref !== "string") return ok(ref);
  return registry.find(ref).mapErr((e) => ({ type: "model" as const, message: e.message }));
}

export function chooseModel(
  registry: ModelRegistry,
  candidates: (Model | string | undefined)[],
  env: NodeJS.ProcessEnv = process.env,
): Result<Model, CodingAgentError> {
  for (const candidate of candidates)
    if (candidate !== undefined) return resolveModelRef(registry, candidate);
  for (const { env: name, ref } of ENV_DEFAULTS) if (env[name]) return resolveModelRef(registry, ref);
  return err({ type: "model", message: NO_MODEL_MESSAGE });
}
