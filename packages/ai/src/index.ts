// @keel/ai public API.
export type * from "./types.js";
export { EventStream } from "./event-stream.js";
export type { AssistantMessageEventStream, ChunkSink, TokenCounts } from "./builder.js";
export { MessageBuilder } from "./builder.js";
export {
  type AdapterOptions,
  type ProviderAdapter,
  DEFAULT_RETRY,
  createAssistantMessageEventStream,
  isRetryable,
  runProvider,
} from "./driver.js";
export { stream, complete, type StreamFunction } from "./stream.js";
export { INTERRUPTED_TOOL_RESULT, type ReplayTarget, transformMessages } from "./replay.js";
export { addUsage, computeCost, emptyUsage } from "./cost.js";
export { BUILTIN_MODELS } from "./models-data.js";
export {
  type ModelLookupError,
  type ModelRegistry,
  builtinModelRegistry,
  findModel,
  getModel,
  listModels,
  listProviders,
  modelRef,
} from "./models.js";
export {
  CUSTOM_COMPAT_DEFAULTS,
  CUSTOM_MODEL_DEFAULTS,
  type ModelConfigError,
  type ModelsConfig,
  ModelsConfigSchema,
  createModelRegistry,
} from "./custom-models.js";
export {
  type SchemaIssue,
  type ToolArgumentsError,
  describeSchemaErrors,
  formatIssues,
  validateToolArguments,
} from "./validation.js";
