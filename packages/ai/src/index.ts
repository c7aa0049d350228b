// @keel/ai public API.

export type { AssistantMessageEventStream, BuilderOptions, ChunkSink, TokenCounts } from "./builder.js";
export { MessageBuilder } from "./builder.js";
export { closestName } from "./closest.js";
export { addUsage, computeCost, emptyUsage, ratesFor } from "./cost.js";
export {
  CUSTOM_COMPAT_DEFAULTS,
  CUSTOM_MODEL_DEFAULTS,
  createModelRegistry,
  type ModelConfigError,
  type ModelsConfig,
  ModelsConfigSchema,
} from "./custom-models.js";
export {
  type DiscoveryOptions,
  listEndpointModels,
  type ModelListing,
  mergeListing,
} from "./discovery.js";
export {
  type AdapterOptions,
  createAssistantMessageEventStream,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_REPLY_CHARS,
  DEFAULT_REPLY_TIMEOUT_MS,
  DEFAULT_RETRY,
  isRetryable,
  type ProviderAdapter,
  replyBound,
  runProvider,
} from "./driver.js";
export { EventStream } from "./event-stream.js";
export {
  builtinModelRegistry,
  createRegistryFromModels,
  defaultModelFor,
  findModel,
  getModel,
  listModels,
  listProviders,
  type ModelLookupError,
  type ModelRegistry,
  modelForUnknownId,
  modelRef,
  type ResolvedModel,
  type ResolveOptions,
  smallModelFor,
  UNKNOWN_MODEL_DEFAULTS,
} from "./models.js";
export { BUILTIN_MODELS, BUILTIN_PROVIDERS } from "./models-data.js";
export { preconnect } from "./preconnect.js";
export { baseUrlOf } from "./providers/base-url.js";
export { INTERRUPTED_TOOL_RESULT, type ReplayTarget, transformMessages } from "./replay.js";
export { complete, type StreamFunction, stream } from "./stream.js";
export {
  fallbackThinking,
  REASONING_EFFORTS,
  resolveThinking,
  THINKING_LEVELS,
  type ThinkingChoice,
  type ThinkingResolution,
  thinkingSpecOf,
} from "./thinking.js";
export { charsPerToken, DEFAULT_CHARS_PER_TOKEN } from "./tokenizer.js";
export {
  FetchFormData,
  FetchHeaders,
  type FetchHeadersInit,
  FetchResponse,
  type FetchResponseInit,
} from "./transport/fetch-types.js";
export {
  connectFor,
  createNet,
  type NetConnectOutcome,
  type NetError,
  type NetOptions,
} from "./transport/net.js";
export type { Dialer } from "./transport/proxy.js";
export { proxyConfigured, proxyFetch } from "./transport/proxy-fetch.js";
export type * from "./types.js";
export {
  describeSchemaErrors,
  formatIssues,
  type SchemaIssue,
  type ToolArgumentsError,
  validateToolArguments,
} from "./validation.js";
