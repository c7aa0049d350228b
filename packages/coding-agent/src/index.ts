// @keel/coding-agent public API: createCodingAgent, the extension host pieces UIs need, and the
// kernel's building blocks (tools, permissions, trust, configuration) for other hosts.

export { parseCommandLine } from "./commands/line.js";
export { CommandRegistry } from "./commands/registry.js";
export { type CompactionSettings, DEFAULT_COMPACTION } from "./compaction/policy.js";
export { CLAUDE_HOOK_NAMES } from "./config/hook-names.js";
export * from "./config/index.js";
export { CatalogRegistry, EXECUTE_TOOL, SEARCH_TOOLS } from "./host/catalogs.js";
export { extensionDataDir, userExtensionConfig } from "./host/cli-context.js";
export { ExtensionHost, type ExtensionSource } from "./host/extension-host.js";
export { diffInventory, type Inventory, noticeText } from "./host/inventory.js";
export { createCodingAgent } from "./kernel/create.js";
export { FILE_HISTORY_LIMITS, type FileHistoryLimits } from "./kernel/file-history.js";
export { MAX_MENTION_BYTES, promptParts } from "./kernel/mentions.js";
export { environmentDefaults, NO_MODEL_MESSAGE, noModelMessage } from "./kernel/model-choice.js";
export {
  DISCOVERY_TTL_MS,
  type DiscoverOptions,
  discoverModels,
  discoveryCachePath,
  type EndpointState,
  type ProviderDiscovery,
} from "./kernel/model-discovery.js";
export { SYNTHETIC_CLOSE, SYNTHETIC_OPEN } from "./kernel/seams.js";
export { defaultSessionDir, latestSessionFile, openChosenSession } from "./kernel/session-open.js";
export { defaultThinking, parseThinkingLevel, type ThinkingState } from "./kernel/thinking.js";
export { formatTrustPreview, previewTrust, type TrustPreview } from "./kernel/trust-preview.js";
export type * from "./kernel/types.js";
export { shellNoticeParts, USER_SHELL_SOURCE } from "./kernel/user-shell.js";
export { type LoadResult, loadExtensions } from "./loader/load-extensions.js";
export {
  hostSdk,
  type InstalledPackage,
  installDeclared,
  installPackage,
  type PackageError,
  type PackageScope,
  packagesDir,
  recordedPackages,
  type UpdatedPackage,
  uninstallPackage,
  updatePackages,
} from "./loader/packages.js";
export * from "./permissions/index.js";
export * from "./sandbox/index.js";
export * from "./tools/index.js";
export * from "./trust/index.js";
