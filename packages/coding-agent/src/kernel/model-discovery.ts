// What each provider's models endpoint says the key can use, merged with the catalog, cached
// under the Keel home with a TTL. Runs only when asked (`keel models`); a run's model resolution
// reads the cache and never waits on the network. Offline, the last answer is used.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  baseUrlOf,
  type EndpointModel,
  listEndpointModels,
  type ModelListing,
  type ModelRegistry,
  mergeListing,
  type ProviderInfo,
} from "@keel/ai";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";
import { loadConfig } from "../config/load.js";
import { resolveKeelHome } from "../config/paths.js";
import { findProjectRoot } from "../trust/root.js";
import { trustStatus } from "../trust/store.js";
import { modelRegistry } from "./model-choice.js";
import type { CodingAgentError } from "./types.js";

/** How long an endpoint's answer is used before `keel models` asks again. */
export const DISCOVERY_TTL_MS = 24 * 60 * 60 * 1000;

interface CachedProvider {
  fetchedAt: string;
  /** The server that answered: a cache from another endpoint (a proxy, a mock) is not used. */
  baseUrl: string;
  models: EndpointModel[];
}

interface DiscoveryCache {
  version: 1;
  providers: Record<string, CachedProvider>;
}

export function discoveryCachePath(home: string): string {
  return join(home, "cache", "models.json");
}

function readCache(home: string): DiscoveryCache {
  try {
    const parsed = JSON.parse(readFileSync(discoveryCachePath(home), "utf8")) as Partial<DiscoveryCache>;
    if (parsed.version === 1 && typeof parsed.providers === "object" && parsed.providers !== null)
      return { version: 1, providers: parsed.providers };
  } catch {
    // Missing or unreadable: discovery starts over; the cache is only ever a shortcut.
  }
  return { version: 1, providers: {} };
}

/**
 * The endpoint lists the cache holds for the registry's providers, whatever their age, for
 * model resolution (ids the endpoint listed run with its limits). Reads one small file.
 */
export function cachedEndpointModels(home: string, registry: ModelRegistry): Record<string, EndpointModel[]> {
  const cache = readCache(home);
  const out: Record<string, EndpointModel[]> = {};
  for (const provider of registry.providers()) {
    const entry = cache.providers[provider];
    const template = registry.defaultModel(provider);
    if (entry && template && entry.baseUrl === baseUrlOf(template)) out[provider] = entry.models;
  }
  return out;
}

/** How the endpoint part of a provider's listing was obtained. */
export type EndpointState =
  | { state: "fetched"; fetchedAt: string }
  | { state: "cached"; fetchedAt: string }
  /** The endpoint failed; the listing is from an older answer. */
  | { state: "stale"; fetchedAt: string; error: string }
  | { state: "failed"; error: string }
  /** No key in the environment: the endpoint was not asked. */
  | { state: "no-key"; keyEnv: string };

export interface ProviderDiscovery {
  provider: string;
  info?: ProviderInfo;
  /** The provider's default model id (catalog default, or its first model). */
  defaultModel?: string;
  smallModel?: string;
  endpoint: EndpointState;
  models: ModelListing[];
}

export interface DiscoverOptions {
  cwd: string;
  home?: string;
  /** One provider, or all the registry knows. */
  provider?: string;
  /** Ask the endpoints even when the cache is fresh. */
  refresh?: boolean;
  ttlMs?: number;
  now?: () => number;
  fetch?: typeof globalThis.fetch;
  env?: NodeJS.ProcessEnv;
}

/** The providers' listings: catalog (and config) models merged with what their endpoints say. */
export async function discoverModels(
  options: DiscoverOptions,
): Promise<Result<ProviderDiscovery[], CodingAgentError>> {
  const home = options.home ?? resolveKeelHome();
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? DISCOVERY_TTL_MS;
  const projectRoot = findProjectRoot(options.cwd, home);
  const trust = trustStatus(projectRoot, { home });
  const loaded = loadConfig({
    cwd: options.cwd,
    home,
    trusted: trust.isOk() && trust.value === "trusted",
    reportUntrusted: false,
  });
  if (loaded.isErr()) return err({ type: "config", message: loaded.error.message });
  const registry = modelRegistry(loaded.value.config.providers);
  if (registry.isErr()) return err(registry.error);
  const providers = registry.value.providers();
  if (options.provider !== undefined && !providers.includes(options.provider)) {
    return err({
      type: "model",
      message: `Unknown provider "${options.provider}"; known: ${providers.join(", ")}. A custom provider needs an entry under "providers" in config.`,
    });
  }
  const cache = readCache(home);
  let dirty = false;
  const wanted = options.provider === undefined ? providers : [options.provider];
  const results = await Promise.all(
    wanted.map(async (provider): Promise<ProviderDiscovery> => {
      const reg = registry.value;
      const template = reg.defaultModel(provider)!;
      const baseUrl = baseUrlOf(template);
      const entry = cache.providers[provider];
      const usable = entry && entry.baseUrl === baseUrl ? entry : undefined;
      let endpoint: EndpointState;
      let listed: EndpointModel[] | undefined;
      if (template.apiKeyEnv && !env[template.apiKeyEnv]) {
        endpoint = { state: "no-key", keyEnv: template.apiKeyEnv };
      } else if (usable && !options.refresh && now() - Date.parse(usable.fetchedAt) < ttl) {
        endpoint = { state: "cached", fetchedAt: usable.fetchedAt };
        listed = usable.models;
      } else {
        const answer = await listEndpointModels(template, {
          ...(template.apiKeyEnv ? { apiKey: env[template.apiKeyEnv] } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
          signal: AbortSignal.timeout(15_000),
        });
        if (answer.isOk()) {
          const fetchedAt = new Date(now()).toISOString();
          cache.providers[provider] = { fetchedAt, baseUrl, models: answer.value };
          dirty = true;
          endpoint = { state: "fetched", fetchedAt };
          listed = answer.value;
        } else if (usable) {
          endpoint = { state: "stale", fetchedAt: usable.fetchedAt, error: answer.error.message };
          listed = usable.models;
        } else {
          endpoint = { state: "failed", error: answer.error.message };
        }
      }
      const info = reg.providerInfo(provider);
      const small = reg.smallModel(provider);
      return {
        provider,
        ...(info ? { info } : {}),
        defaultModel: template.id,
        ...(small ? { smallModel: small.id } : {}),
        endpoint,
        models: mergeListing(reg.list(provider), listed),
      };
    }),
  );
  if (dirty) {
    // A cache that cannot be written only costs the next run a request; say nothing.
    try {
      mkdirSync(join(home, "cache"), { recursive: true });
      writeFileAtomic(discoveryCachePath(home), `${JSON.stringify(cache, null, 2)}\n`);
    } catch {
      // See above.
    }
  }
  return ok(results);
}
