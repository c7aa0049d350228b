// Run-time discovery: what a provider's models endpoint (GET …/models) says a key can use, in
// Anthropic's or OpenAI's shape, and that list merged with the catalog. Never throws.

import { err, type Result } from "neverthrow";
import { resolveApiKey } from "./driver.js";
import { explainFailure } from "./failure.js";
import { modelForUnknownId, modelRef } from "./models.js";
import { endpointOf } from "./providers/base-url.js";
import type { AiError, EndpointModel, Model } from "./types.js";

export interface DiscoveryOptions {
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Raw rows as servers send them: Anthropic's ModelInfo, OpenAI's Model, OpenRouter's extras. */
interface RawModel {
  id?: unknown;
  display_name?: unknown;
  name?: unknown;
  max_input_tokens?: unknown;
  max_tokens?: unknown;
  context_length?: unknown;
  created_at?: unknown;
  created?: unknown;
  top_provider?: { max_completion_tokens?: unknown };
}

const num = (v: unknown): number | undefined => (typeof v === "number" && v > 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function toEndpointModel(raw: RawModel): EndpointModel | undefined {
  const id = str(raw.id);
  if (!id) return undefined;
  const name = str(raw.display_name) ?? str(raw.name);
  const contextWindow = num(raw.max_input_tokens) ?? num(raw.context_length);
  const maxOutput = num(raw.max_tokens) ?? num(raw.top_provider?.max_completion_tokens);
  const created =
    str(raw.created_at) ?? (num(raw.created) ? new Date(num(raw.created)! * 1000).toISOString() : undefined);
  return {
    id,
    ...(name && name !== id ? { name } : {}),
    ...(contextWindow ? { contextWindow } : {}),
    ...(maxOutput ? { maxOutput } : {}),
    ...(created ? { createdAt: created } : {}),
  };
}

/**
 * The models the provider of `model` lists for the key, through the official SDK of its API
 * (pagination followed). `model` is any model of the provider: it gives endpoint, key and headers.
 */
export async function listEndpointModels(
  model: Model,
  options: DiscoveryOptions = {},
): Promise<Result<EndpointModel[], AiError>> {
  const apiKey = resolveApiKey(model, options);
  if (typeof apiKey !== "string") return err(apiKey);
  const signal = options.signal ?? new AbortController().signal;
  const adapterOptions = {
    apiKey,
    signal,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
  // Failures say where the listing was asked for and what to check, as a model call's do.
  const explain = (path: string) => (error: AiError) =>
    explainFailure(error, { model, endpoint: endpointOf(model, path), keyGiven: Boolean(options.apiKey) });
  if (model.api === "anthropic-messages") {
    const { listAnthropicModels } = await import("./providers/anthropic-models.js");
    return (await listAnthropicModels(model, adapterOptions)).mapErr(explain("/v1/models"));
  }
  const { listOpenAIModels } = await import("./providers/openai-models.js");
  return (await listOpenAIModels(model, adapterOptions)).mapErr(explain("/models"));
}

/** Collects an SDK page iterator into endpoint models, stopping at `limit` rows. */
export async function collect(pages: AsyncIterable<unknown>, limit = 5000): Promise<EndpointModel[]> {
  const out: EndpointModel[] = [];
  for await (const raw of pages) {
    const row = toEndpointModel(raw as RawModel);
    if (row) out.push(row);
    if (out.length >= limit) break;
  }
  return out;
}

/** One line of a merged listing. */
export interface ModelListing {
  ref: string;
  provider: string;
  id: string;
  name: string;
  /** In Keel's catalog (or config). */
  inCatalog: boolean;
  /**
   * Whether the models endpoint lists it for the key: true, false (the key cannot use it), or
   * undefined (the endpoint was not asked, or the provider has none).
   */
  available: boolean | undefined;
  legacy: boolean;
  /** The model a run would use (provider defaults plus the endpoint's limits for endpoint-only ids). */
  model: Model;
  /** One line for the user: why it is marked. */
  note?: string;
}

/**
 * The catalog's models of one provider merged with what its endpoint listed: catalog rows in
 * catalog order (marked when the key cannot use them), then endpoint-only ids, usable with the
 * provider's defaults. `endpoint` undefined means nothing is known about the key.
 */
export function mergeListing(
  catalog: readonly Model[],
  endpoint: readonly EndpointModel[] | undefined,
): ModelListing[] {
  const listed = new Map((endpoint ?? []).map((m) => [m.id, m]));
  const out: ModelListing[] = catalog.map((model) => {
    const available = endpoint === undefined ? undefined : listed.has(model.id);
    const note =
      available === false
        ? "not listed by the provider's models endpoint for this key"
        : model.legacy
          ? `legacy: ${model.note ?? "superseded, still callable"}`
          : model.note;
    return {
      ref: modelRef(model),
      provider: model.provider,
      id: model.id,
      name: model.name,
      inCatalog: true,
      available,
      legacy: model.legacy === true,
      model,
      ...(note ? { note } : {}),
    };
  });
  const template = catalog[0];
  if (!template) return out;
  const known = new Set(catalog.map((m) => m.id));
  for (const row of endpoint ?? []) {
    if (known.has(row.id)) continue;
    const model = modelForUnknownId(template, row.id, row);
    out.push({
      ref: modelRef(model),
      provider: model.provider,
      id: row.id,
      name: row.name ?? row.id,
      inCatalog: false,
      available: true,
      legacy: false,
      model,
      note: `not in Keel's catalog: runs with ${model.provider}'s defaults (${model.contextWindow.toLocaleString("en-US")}-token window), prices unknown`,
    });
  }
  return out;
}
