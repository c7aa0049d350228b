// @keel/cli public API: the pieces of `keel` other hosts and the TUI reuse (argument parsing,
// composition, exit codes, print-mode event lines). The `keel` bin is dist/bin.cjs.
export {
  type CliCommand,
  type CliFlags,
  INPUT_FORMATS,
  type InputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
  PERMISSION_MODES,
  type PermissionMode,
  parseCliArgs,
  type SessionFlag,
  type UsageError,
} from "./args.js";
export { composeOptions } from "./compose.js";
export { EXIT, outcomeOf, type RunOutcome } from "./exit-codes.js";
export { HELP } from "./help.js";
export type { InteractiveFlags, InteractiveModule } from "./interactive.js";
export { OFFICIAL_EXTENSIONS, officialExtensions } from "./official.js";
export {
  type CommandLine,
  eventLine,
  type InitLine,
  initLine,
  type LineOptions,
  type ResultLine,
  resultLine,
  type StreamLine,
} from "./print/events.js";
export {
  type InputLine,
  PRINT_SCHEMA_ID,
  PRINT_SCHEMA_VERSION,
  printSchema,
} from "./print/schema.js";
