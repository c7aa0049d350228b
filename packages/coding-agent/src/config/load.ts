// Layers user < project < project-local config; project layers are never touched unless trusted.
import { homedir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { pathExists } from "../fs/paths.js";
import { checkRule } from "../permissions/rules.js";
import type { PermissionBehavior, PermissionRuleEntry, RuleSource } from "../permissions/types.js";
import { findProjectRoot } from "../trust/root.js";
import {
  type ClaudeLayer,
  claudeSettingsPaths,
  readClaudeSettings,
  translateClaudeSettings,
} from "./claude-settings.js";
import type { ConfigDiagnostic, ConfigError } from "./errors.js";
import { hookNameWarnings, hookTypeWarnings } from "./hook-names.js";
import { isPlainObject, mergeLayers } from "./merge.js";
import { configPaths, displayPath, PROJECT_DIR, resolveKeelHome } from "./paths.js";
import { readConfigText, validateAgainst } from "./read.js";
import { type KeelConfig, KeelConfigSchema, KNOWN_KEYS } from "./schema.js";

/**
 * Keel's own files, below them Claude Code's settings files (config/claude-settings.ts), and above
 * all of them `claudeSession`: Claude Code-shaped settings the host gave for this session only
 * (`keel --settings`, like `claude --settings`).
 */
export type ConfigLayer = "user" | "project" | "projectLocal" | ClaudeLayer | "claudeSession";

/**
 * Lowest first: Claude Code's files, then Keel's, so Keel's value wins where both set one; the
 * session's settings last, as Claude Code puts its command line above every settings file.
 */
export const LAYER_ORDER: readonly ConfigLayer[] = [
  "claudeUser",
  "claudeProject",
  "claudeProjectLocal",
  "user",
  "project",
  "projectLocal",
  "claudeSession",
];

export interface ConfigSource {
  layer: ConfigLayer;
  path: string;
  status: "loaded" | "missing" | "not_trusted" | "opted_out";
  /** Claude Code's files: the top-level keys Keel does not use. */
  ignored?: string[];
}

export interface LoadedConfig {
  /** The merged config. Permission rule arrays are concatenated across layers (see `rules`). */
  config: KeelConfig;
  /** Every permission rule with the layer it came from, in layer order. */
  rules: PermissionRuleEntry[];
  sources: ConfigSource[];
  diagnostics: ConfigDiagnostic[];
  projectRoot: string;
  /** Each layer as read (validated), for settings whose scope matters (extension configuration). */
  layers: Partial<Record<ConfigLayer, KeelConfig>>;
}

export interface LoadConfigOptions {
  cwd: string;
  /** The Keel home directory (holding config.json and trust.json); default `$KEEL_HOME` or `~/.keel`. */
  home?: string;
  /** Whether the project is trusted (see trustStatus). Untrusted project layers are not read at all. */
  trusted: boolean;
  /**
   * Say once that an untrusted project's .keel/ was skipped (default true). The kernel passes
   * false: it reports trust once for everything trust gates (config, extensions, hooks, context).
   */
  reportUntrusted?: boolean;
  /** The user's home directory (messages, and ~/.claude/settings.json); default os.homedir(). */
  userHome?: string;
  /**
   * Claude Code-shaped settings for this session (`--settings <file or JSON>`), read whether or
   * not the project is trusted: the user gave them. `source` names them in messages.
   */
  sessionSettings?: { source: string; value: unknown };
}

export function loadConfig(options: LoadConfigOptions): Result<LoadedConfig, ConfigError> {
  const keelHome = options.home ?? resolveKeelHome();
  const userHome = options.userHome ?? homedir();
  const projectRoot = findProjectRoot(options.cwd, keelHome);
  const paths = configPaths(keelHome, projectRoot);
  const layers: { layer: ConfigLayer; path: string }[] = [
    { layer: "user", path: paths.user },
    { layer: "project", path: paths.project },
    { layer: "projectLocal", path: paths.projectLocal },
  ];

  const sources: ConfigSource[] = [];
  const diagnostics: ConfigDiagnostic[] = [];
  const layerValues: Partial<Record<ConfigLayer, KeelConfig>> = {};

  for (const { layer, path } of layers) {
    if (layer !== "user" && !options.trusted) {
      sources.push({ layer, path, status: "not_trusted" });
      continue;
    }
    const read = readConfigText(path, userHome);
    if (read.isErr()) return err(read.error);
    if (read.value === undefined) {
      sources.push({ layer, path, status: "missing" });
      continue;
    }
    const valid = validateAgainst<KeelConfig>(
      KeelConfigSchema,
      read.value.value,
      path,
      userHome,
      read.value.text,
    );
    if (valid.isErr()) return err(valid.error);
    const file = displayPath(path, userHome);
    sources.push({ layer, path, status: "loaded" });
    layerValues[layer] = valid.value;
    diagnostics.push(
      ...unknownKeyWarnings(valid.value, file),
      ...hookNameWarnings(valid.value.hooks, file),
      ...hookTypeWarnings(valid.value.hooks, file),
    );
  }

  // Claude Code's files, below Keel's. ~/.claude unless Keel's config opts out; the project's only when trusted.
  const userFiles = [layerValues.user, layerValues.project, layerValues.projectLocal].reduce<boolean>(
    (on, l) => (l?.claude?.userFiles === undefined ? on : l.claude.userFiles),
    true,
  );
  const claudePaths = claudeSettingsPaths(projectRoot, userHome);
  for (const layer of ["claudeUser", "claudeProject", "claudeProjectLocal"] as const) {
    const path = claudePaths[layer];
    if (layer === "claudeUser" ? !userFiles : !options.trusted) {
      sources.push({ layer, path, status: layer === "claudeUser" ? "opted_out" : "not_trusted" });
      continue;
    }
    const read = readClaudeSettings(path, projectRoot, userHome);
    if (read.isErr()) return err(read.error);
    if (read.value === undefined) {
      sources.push({ layer, path, status: "missing" });
      continue;
    }
    diagnostics.push(...read.value.diagnostics);
    sources.push({ layer, path, status: "loaded", ignored: read.value.ignored });
    layerValues[layer] = read.value.config;
  }
  if (options.sessionSettings) {
    const { source, value } = options.sessionSettings;
    const translated = translateClaudeSettings(value, projectRoot, source);
    diagnostics.push(...translated.diagnostics);
    sources.push({ layer: "claudeSession", path: source, status: "loaded", ignored: translated.ignored });
    layerValues.claudeSession = translated.config;
  }

  const rules: PermissionRuleEntry[] = [];
  let merged: Record<string, unknown> = {};
  for (const layer of LAYER_ORDER) {
    const value = layerValues[layer];
    if (!value) continue;
    const file = displayPath(sources.find((s) => s.layer === layer)!.path, userHome);
    // The session's settings are the command line's word, like --allowedTools.
    const own = rulesOf(value, layer === "claudeSession" ? "cli" : layer);
    rules.push(...own);
    for (const rule of own) {
      const problem = checkRule(rule.rule);
      if (problem) diagnostics.push({ level: "warning", file, message: `${file}: ${problem} (ignored)` });
    }
    merged = mergeLayers(merged, value, accumulates) as Record<string, unknown>;
  }

  // A stat, not an open: enough to tell the user there was something we deliberately skipped.
  if (!options.trusted && options.reportUntrusted !== false && pathExists(join(projectRoot, PROJECT_DIR))) {
    diagnostics.push({
      level: "info",
      file: displayPath(join(projectRoot, PROJECT_DIR), userHome),
      message: `project ${displayPath(projectRoot, userHome)} is not trusted: its .keel/ config was not read (trust the project to use it)`,
    });
  }
  return ok({ config: merged as KeelConfig, rules, sources, diagnostics, projectRoot, layers: layerValues });
}

const BEHAVIORS: readonly PermissionBehavior[] = ["allow", "ask", "deny"];

function rulesOf(config: KeelConfig, source: RuleSource): PermissionRuleEntry[] {
  const out: PermissionRuleEntry[] = [];
  for (const behavior of BEHAVIORS) {
    for (const rule of config.permissions?.[behavior] ?? []) out.push({ rule, behavior, source });
  }
  return out;
}

function unknownKeyWarnings(config: Record<string, unknown>, file: string): ConfigDiagnostic[] {
  const out: ConfigDiagnostic[] = [];
  for (const [pointer, known] of Object.entries(KNOWN_KEYS)) {
    const obj = pointer === "" ? config : config[pointer.slice(1)];
    if (!isPlainObject(obj)) continue;
    for (const key of Object.keys(obj)) {
      if (!known.includes(key)) {
        out.push({
          level: "warning",
          file,
          message: `${file}: unknown key ${pointer}/${key} (kept as is; check the spelling)`,
        });
      }
    }
  }
  return out;
}

/** Arrays that accumulate across layers; every other array is replaced by the higher layer. */
function accumulates(pointer: string): boolean {
  return (
    /^\/permissions\/(allow|ask|deny)$/.test(pointer) ||
    /^\/hooks\/[^/]+$/.test(pointer) ||
    pointer === "/additionalDirectories"
  );
}
