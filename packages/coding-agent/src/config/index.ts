// Public surface of Keel configuration (re-exported by the package index).

export {
  CLAUDE_SETTINGS_READ,
  type ClaudeLayer,
  claudeSettingsPaths,
} from "./claude-settings.js";
export type { ConfigDiagnostic, ConfigError, FieldError } from "./errors.js";
export {
  type ConfigLayer,
  type ConfigSource,
  LAYER_ORDER,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from "./load.js";
export { type ConfigPaths, configPaths, displayPath, PROJECT_DIR, resolveKeelHome } from "./paths.js";
export {
  type HookCommand,
  HookCommandSchema,
  type KeelConfig,
  KeelConfigSchema,
  PERMISSION_MODES,
  type PermissionsConfig,
  PermissionsConfigSchema,
} from "./schema.js";
export {
  flattenSettings,
  getSetting,
  listSettings,
  parseSettingValue,
  type SettingError,
  type SettingScope,
  type SettingsPlace,
  setSetting,
  settingsFile,
  settingWarnings,
  unsetSetting,
} from "./settings.js";
export {
  addPermissionRule,
  type ConfigObject,
  ensureLocalConfigIgnored,
  type RuleScope,
  removePermissionRule,
  updateConfigFile,
} from "./write.js";
