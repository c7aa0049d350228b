// The extension's configuration: the user's file decides the provider, key, endpoint, limits and
// allowlist; a trusted project may only narrow them (a shorter allowlist, lower caps), never
// widen them or redirect the key to another endpoint.
import { type Static, Type } from "@keel/extension-sdk";

export const CONFIG_KEY = "extensions.web-search.config";

const MB = 1024 * 1024;

export const DEFAULTS = {
  search: {
    provider: "auto",
    apiKeyEnv: "TAVILY_API_KEY",
    maxResults: 5,
    timeoutMs: 30_000,
  },
  fetch: {
    allow: [] as string[],
    upgradeHttp: true,
    maxDownloadBytes: 10 * MB,
    maxResultBytes: 100_000,
    timeoutMs: 30_000,
    maxRedirects: 5,
    cacheTtlMs: 15 * 60_000,
    userAgent: "Mozilla/5.0 (compatible; Keel WebFetch; +https://www.npmjs.com/package/@keel/ext-web-search)",
  },
};

const SearchFields = {
  provider: Type.String({
    minLength: 1,
    description:
      '"auto" (default: Tavily when its key is set, else the model provider\'s own search), "model", "tavily", "searxng", or a provider a package adds',
  }),
  apiKeyEnv: Type.String({ minLength: 1, description: "The environment variable holding the API key" }),
  apiKey: Type.String({
    minLength: 1,
    description: "The key itself (prefer apiKeyEnv: config files get shared)",
  }),
  endpoint: Type.String({
    minLength: 1,
    description: "API base URL (Tavily: apiBaseURL; SearXNG: the instance)",
  }),
  maxResults: Type.Integer({ minimum: 1, maximum: 20 }),
  timeoutMs: Type.Integer({ minimum: 1000, maximum: 300_000 }),
  maxSearchesPerSession: Type.Integer({ minimum: 0, description: "0 or absent: no cap" }),
};

const FetchFields = {
  allow: Type.Array(Type.String({ minLength: 1 }), {
    description: "Hosts (*.x for subdomains), IPs and CIDR ranges WebFetch may reach although private",
  }),
  upgradeHttp: Type.Boolean(),
  maxDownloadBytes: Type.Integer({ minimum: 1024, maximum: 200 * MB }),
  maxResultBytes: Type.Integer({ minimum: 1000, maximum: 2 * MB }),
  timeoutMs: Type.Integer({ minimum: 1000, maximum: 300_000 }),
  maxRedirects: Type.Integer({ minimum: 0, maximum: 20 }),
  cacheTtlMs: Type.Integer({ minimum: 0 }),
  userAgent: Type.String({ minLength: 1 }),
};

const { apiKey, endpoint, maxSearchesPerSession, ...requiredSearch } = SearchFields;

export const ConfigSchema = Type.Object({
  search: Type.Object({
    ...requiredSearch,
    apiKey: Type.Optional(apiKey),
    endpoint: Type.Optional(endpoint),
    maxSearchesPerSession: Type.Optional(maxSearchesPerSession),
  }),
  fetch: Type.Object(FetchFields),
});

/** What one config file may hold: any part of the above. */
export const LayerSchema = Type.Object({
  search: Type.Optional(Type.Partial(Type.Object(SearchFields))),
  fetch: Type.Optional(Type.Partial(Type.Object(FetchFields))),
});

export type WebConfig = Static<typeof ConfigSchema>;
type Layer = Partial<Static<typeof LayerSchema>>;

const lower = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** Deep-merges the user's layer over the defaults, then applies only the narrowing parts of the project's. */
export function resolveConfig(layers: { user: Layer | undefined; project: Layer | undefined }): WebConfig {
  const user = layers.user ?? {};
  const project = layers.project ?? {};
  const search = { ...DEFAULTS.search, ...user.search };
  const fetch = { ...DEFAULTS.fetch, ...user.fetch, allow: [...(user.fetch?.allow ?? DEFAULTS.fetch.allow)] };
  const p = project.fetch ?? {};
  if (p.allow) fetch.allow = fetch.allow.filter((entry) => p.allow!.includes(entry));
  if (p.upgradeHttp === true) fetch.upgradeHttp = true;
  fetch.maxDownloadBytes = lower(fetch.maxDownloadBytes, p.maxDownloadBytes)!;
  fetch.maxResultBytes = lower(fetch.maxResultBytes, p.maxResultBytes)!;
  fetch.timeoutMs = lower(fetch.timeoutMs, p.timeoutMs)!;
  fetch.maxRedirects = lower(fetch.maxRedirects, p.maxRedirects)!;
  fetch.cacheTtlMs = lower(fetch.cacheTtlMs, p.cacheTtlMs)!;
  const ps = project.search ?? {};
  search.maxResults = lower(search.maxResults, ps.maxResults)!;
  search.timeoutMs = lower(search.timeoutMs, ps.timeoutMs)!;
  // 0 means no cap in either file; a project's cap still applies under the user's "none".
  const cap = lower(search.maxSearchesPerSession || undefined, ps.maxSearchesPerSession || undefined);
  const { maxSearchesPerSession: _drop, ...rest } = search;
  return { search: { ...rest, ...(cap !== undefined ? { maxSearchesPerSession: cap } : {}) }, fetch };
}

export interface KeyChoice {
  key?: string;
  /** Where it comes from, for messages; never the key. */
  source: string;
}

export function keyFrom(config: WebConfig, env: Readonly<Record<string, string | undefined>>): KeyChoice {
  if (config.search.apiKey) return { key: config.search.apiKey, source: `search.apiKey in ${CONFIG_KEY}` };
  const value = env[config.search.apiKeyEnv]?.trim();
  return { ...(value ? { key: value } : {}), source: `$${config.search.apiKeyEnv}` };
}
