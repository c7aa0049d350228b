// The search provider contract: one request shape in, one result schema out, failures as tagged
// values. Tavily and SearXNG implement it; a package adds another by passing a factory to
// createWebSearchExtension({ providers }).
import type { ModelsAccess } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { HttpClient } from "../net/client.js";

export type TimeRange = "day" | "week" | "month" | "year";
export type Topic = "general" | "news" | "finance";

export interface SearchRequest {
  query: string;
  maxResults: number;
  includeDomains?: string[];
  excludeDomains?: string[];
  timeRange?: TimeRange;
  /** Results from the last N days (providers without it map it to a time range). */
  days?: number;
  topic?: Topic;
  /** Ask the provider for its own short answer, when it has one. */
  includeAnswer?: boolean;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** ISO date or the provider's date text. */
  published?: string;
  /** The provider's relevance score (higher is better; scales differ between providers). */
  score?: number;
}

export interface SearchResponse {
  provider: string;
  results: SearchResult[];
  answer?: string;
  /** Sources the answer cites, with the words it cites from each (the model provider's search). */
  citations?: { url: string; title?: string; citedText?: string }[];
  /** Credits or requests the provider reports for this search. */
  usage?: { credits?: number; requests?: number };
  /**
   * Set when the search was a model call (the model provider's own search): its tokens and fees
   * are in the session's model usage already, so nothing is recorded apart.
   */
  model?: { ref: string; searches: number; costUsd: number };
  /** What the provider could not honour (a filter it lacks), in words for the model. */
  notes?: string[];
}

export type SearchErrorType =
  /** The provider refused the key (401/403). */
  | "auth"
  /** A plan or usage limit was reached. */
  | "quota"
  | "rate_limit"
  /** The provider answered with another error. */
  | "provider"
  | "timeout"
  | "network"
  | "bad_response"
  | "bad_request"
  /** The session's own search cap was reached. */
  | "session_cap"
  | "not_configured";

export interface SearchError {
  type: SearchErrorType;
  message: string;
  status?: number;
}

export interface SearchProvider {
  readonly name: string;
  search(request: SearchRequest, signal: AbortSignal): Promise<Result<SearchResponse, SearchError>>;
}

/** The user's provider settings, as resolved from config (the key is already read from its variable). */
export interface ProviderSettings {
  provider: string;
  apiKey?: string;
  /** Where the key came from, for messages ("$TAVILY_API_KEY"); never the key itself. */
  keySource?: string;
  endpoint?: string;
  timeoutMs: number;
}

/** Environment variables (API keys; a provider's own client may read its proxy from them). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ProviderContext {
  http: HttpClient;
  env: Env;
  /** The session's models: the model provider's own search calls one through them. */
  models?: ModelsAccess;
}

/**
 * Builds a provider from settings, or says why it cannot (no key, no endpoint): then WebSearch
 * is not offered and the reason is reported once.
 */
export type ProviderFactory = (
  settings: ProviderSettings,
  context: ProviderContext,
) => Result<SearchProvider, SearchError>;
