// Claude Code's settings files (~/.claude/settings.json, .claude/settings.json,
// .claude/settings.local.json) read as Keel config layers below Keel's own: the parts Keel has a
// meaning for (permissions, hooks, env, additional directories) translated, the rest named as
// ignored. A part Keel cannot use is a warning, never a refusal: these files are written for
// another tool, and Keel must start with whatever they hold.
import { homedir } from "node:os";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { ok, type Result } from "neverthrow";
import type { ConfigDiagnostic, ConfigError } from "./errors.js";
import { hookNameWarnings, hookTypeWarnings } from "./hook-names.js";
import { isPlainObject } from "./merge.js";
import { displayPath } from "./paths.js";
import { readConfigText } from "./read.js";
import { type KeelConfig, KeelConfigSchema, PERMISSION_MODES } from "./schema.js";

export type ClaudeLayer = "claudeUser" | "claudeProject" | "claudeProjectLocal";

export function claudeSettingsPaths(
  projectRoot: string,
  userHome: string = homedir(),
): Record<ClaudeLayer, string> {
  return {
    claudeUser: join(userHome, ".claude", "settings.json"),
    claudeProject: join(projectRoot, ".claude", "settings.json"),
    claudeProjectLocal: join(projectRoot, ".claude", "settings.local.json"),
  };
}

/** Top-level keys of Claude Code's settings that Keel translates; every other key is ignored. */
export const CLAUDE_SETTINGS_READ = ["permissions", "hooks", "env"] as const;
const PERMISSION_KEYS = ["allow", "ask", "deny", "defaultMode", "additionalDirectories"];

export interface ClaudeSettings {
  /** The translated settings, valid Keel config. */
  config: KeelConfig;
  /** Top-level keys of the file Keel does not use (`model`, `statusLine`, …). */
  ignored: string[];
  diagnostics: ConfigDiagnostic[];
}

/**
 * A Claude Code path rule's specifier in Keel's terms: `/path` is relative to the project root in
 * Claude Code (Keel reads a lone `/` as the filesystem root), `//path` and `~/path` mean the same.
 */
export function translateRule(rule: string, projectRoot: string): string {
  const m = /^(Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep|LS)\((\/(?!\/).*)\)$/s.exec(rule.trim());
  if (!m) return rule;
  return `${m[1]}(/${join(projectRoot, m[2]!)})`;
}

/** Reads and translates one settings file; `undefined` when it does not exist. */
export function readClaudeSettings(
  path: string,
  projectRoot: string,
  userHome: string = homedir(),
): Result<ClaudeSettings | undefined, ConfigError> {
  const file = displayPath(path, userHome);
  const read = readConfigText(path, userHome);
  if (read.isErr()) {
    // Broken JSON in another tool's file: said once, and Keel starts without it.
    return ok({
      config: {},
      ignored: [],
      diagnostics: [{ level: "warning", file, message: `${read.error.message} (not used)` }],
    });
  }
  if (read.value === undefined) return ok(undefined);
  return ok(translateClaudeSettings(read.value.value, projectRoot, file));
}

/** A settings file's value in Keel's terms (pure: trust's surface uses it on the bytes it read). */
export function translateClaudeSettings(raw: unknown, projectRoot: string, file: string): ClaudeSettings {
  const diagnostics: ConfigDiagnostic[] = [];
  const warn = (message: string) =>
    diagnostics.push({ level: "warning", file, message: `${file}: ${message}` });
  if (!isPlainObject(raw)) {
    warn("is not a JSON object (not used)");
    return { config: {}, ignored: [], diagnostics };
  }
  const config: Record<string, unknown> = {};
  // Each part is checked on its own: one Keel cannot use is dropped with a warning, the others stay.
  const take = (key: string, value: unknown, what: string) => {
    if (Value.Check(KeelConfigSchema, { [key]: value })) config[key] = value;
    else warn(`${what} has a shape Keel cannot use (ignored)`);
  };
  const p = raw.permissions;
  if (isPlainObject(p)) {
    const permissions: Record<string, unknown> = {};
    for (const behavior of ["allow", "ask", "deny"] as const) {
      const list = p[behavior];
      if (list === undefined) continue;
      if (!Array.isArray(list) || !list.every((r) => typeof r === "string" && r !== ""))
        warn(`permissions.${behavior} is not a list of rules (ignored)`);
      else permissions[behavior] = list.map((r) => translateRule(r, projectRoot));
    }
    if (p.defaultMode !== undefined) {
      if ((PERMISSION_MODES as readonly unknown[]).includes(p.defaultMode)) permissions.mode = p.defaultMode;
      else warn(`permissions.defaultMode ${JSON.stringify(p.defaultMode)} is not a mode Keel has (ignored)`);
    }
    take("permissions", permissions, "permissions");
    if (p.additionalDirectories !== undefined)
      take("additionalDirectories", p.additionalDirectories, "permissions.additionalDirectories");
    const other = Object.keys(p).filter((k) => !PERMISSION_KEYS.includes(k));
    if (other.length > 0) warn(`permissions.${other.join(", permissions.")}: not used by Keel (ignored)`);
  } else if (p !== undefined) warn("permissions is not an object (ignored)");
  if (raw.hooks !== undefined) {
    take("hooks", raw.hooks, "hooks");
    if (config.hooks !== undefined)
      diagnostics.push(...hookNameWarnings(raw.hooks, file), ...hookTypeWarnings(raw.hooks, file));
  }
  if (raw.env !== undefined) {
    // Claude Code takes any JSON value and sets its text; Keel's env holds strings.
    const env = isPlainObject(raw.env)
      ? Object.fromEntries(
          Object.entries(raw.env).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
        )
      : raw.env;
    take("env", env, "env");
  }
  const ignored = Object.keys(raw).filter(
    (k) => !(CLAUDE_SETTINGS_READ as readonly string[]).includes(k) && k !== "$schema",
  );
  return { config: config as KeelConfig, ignored, diagnostics };
}
