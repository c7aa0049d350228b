// @keel/ext-web-search: WebSearch over pluggable providers (Tavily, SearXNG, or a package's own)
// and WebFetch, a bounded HTML-to-Markdown fetch that never reaches private networks unasked.
export { CONFIG_KEY, type WebConfig } from "./config.js";
export { escapeExternal, UNTRUSTED_NOTE, wrapExternal } from "./envelope.js";
export {
  createWebSearchExtension,
  DEFAULTS,
  type WebSearchOptions,
  webSearchExtension,
} from "./extension.js";
export { type AddressClass, classifyAddress } from "./net/address.js";
export type { HttpClient, NetworkSeams, RequestOptions } from "./net/client.js";
export type { NetError, NetErrorType } from "./net/errors.js";
export type { Resolver } from "./net/guard.js";
export type { HttpResponse } from "./net/http.js";
export { MODEL_SEARCHES_PER_CALL, modelSearchProvider } from "./search/model.js";
export type {
  ProviderContext,
  ProviderFactory,
  ProviderSettings,
  SearchError,
  SearchErrorType,
  SearchProvider,
  SearchRequest,
  SearchResponse,
  SearchResult,
  TimeRange,
  Topic,
} from "./search/provider.js";
export { searxngProvider } from "./search/searxng.js";
export { type TavilyModule, type TavilyOptions, tavilyProvider } from "./search/tavily.js";

import { webSearchExtension } from "./extension.js";

export default webSearchExtension;
