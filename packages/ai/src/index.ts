// @keel/ai public API.

export type { AssistantMessageEventStream, BuilderOptions, ChunkSink, TokenCounts } from "./builder.js";
export { MessageBuilder } from "./builder.js";
export { addUsage, computeCost, emptyUsage } from "./cost.js";
export {
  CUSTOM_COMPAT_DEFAULTS,
  CUSTOM_MODEL_DEFAULTS,
  createModelRegistry,
  type ModelConfigError,
  type ModelsConfig,
  ModelsConfigSchema,
} from "./custom-models.js";
export {
  type AdapterOptions,
  createAssistantMessageEventStream,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_REPLY_CHARS,
  DEFAULT_RETRY,
  isRetryable,
  type ProviderAdapter,
  replyBound,
  runProvider,
} from "./driver.js";
export { EventStream } from "./event-stream.js";
export {
  builtinModelRegistry,
  findModel,
  getModel,
  listModels,
  listProviders,
  type ModelLookupError,
  type ModelRegistry,
  modelRef,
} from "./models.js";
export { BUILTIN_MODELS } from "./models-data.js";
export { preconnect } from "./preconnect.js";
export { INTERRUPTED_TOOL_RESULT, type ReplayTarget, transformMessages } from "./replay.js";
export { complete, type StreamFunction, stream } from "./stream.js";
export type * from "./types.js";
export {
  describeSchemaErrors,
  formatIssues,
  type SchemaIssue,
  type ToolArgumentsError,
  validateToolArguments,
} from "./validation.js";
