// Public surface of the built-in tools, re-exported by the package's src/index.ts.
export {
  type BashDetails,
  type BashParams,
  type BashToolOptions,
  createBashTool,
  defaultShell,
} from "./bash.js";
export { defaultLogDir, LOG_LIMITS, type LogLimits } from "./bash-logs.js";
export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolsOptions,
  createBuiltinTools,
} from "./builtin.js";
export {
  callInfo,
  type DeclaredTool,
  declarationOf,
  isJournaled,
  previewOf,
} from "./declarations.js";
export { createEditTool, type EditDetails, type EditParams, type EditToolOptions } from "./edit.js";
export { type ImageMimeType, imageMimeTypeForPath, looksBinary, sniffImageMimeType } from "./file-kind.js";
export { FileReadTracker, type FileStamp, type FreshnessError, hashBytes, stampOf } from "./file-tracker.js";
export { createGlobTool, type GlobDetails, type GlobParams, type GlobToolOptions } from "./glob.js";
export { createGrepTool, type GrepDetails, type GrepParams, type GrepToolOptions } from "./grep.js";
export { createLsTool, type LsDetails, type LsParams, type LsToolOptions } from "./ls.js";
export { killAllCommandTrees } from "./process-tree.js";
export {
  createReadTool,
  READ_LIMITS,
  type ReadDetails,
  type ReadParams,
  type ReadToolOptions,
} from "./read.js";
export type { BuiltinTool } from "./shared.js";
export type { GuardedEntry, WalkGuard } from "./walk.js";
export { createWriteTool, type WriteDetails, type WriteParams, type WriteToolOptions } from "./write.js";
