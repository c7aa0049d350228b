// Updates config files (atomically, through the one atomic write) keeps personal config out of git.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";
import { errnoCode, errnoMessage } from "../fs/errno.js";
import type { PermissionBehavior } from "../permissions/types.js";
import { editJsonText } from "./edit-text.js";
import type { ConfigError } from "./errors.js";
import { configPaths, displayPath, PROJECT_DIR } from "./paths.js";
import { readConfigText } from "./read.js";

export type ConfigObject = Record<string, unknown>;

/**
 * Reads `path` (missing = `{}`), applies `mutate`, writes the result atomically, changing the text
 * only where the value changed (comments stay). A file that is not valid JSON(C), or not an
 * object, is left untouched and reported: never clobber a user's file.
 */
export function updateConfigFile(
  path: string,
  mutate: (current: ConfigObject) => ConfigObject,
): Result<ConfigObject, ConfigError> {
  const read = readConfigText(path);
  if (read.isErr()) return err(read.error);
  const current = read.value?.value ?? {};
  if (typeof current !== "object" || current === null || Array.isArray(current)) {
    const file = displayPath(path);
    return err({
      type: "config_invalid",
      file,
      errors: [{ path: "/", message: "must be an object" }],
      message: `${file}: / must be an object`,
    });
  }
  const next = mutate(structuredClone(current as ConfigObject));
  const written = writeConfigText(path, editJsonText(read.value?.text, current, next));
  return written.map(() => next);
}

/** Config files may hold personal rules: a new one is readable by its owner only. */
function writeConfigText(path: string, text: string): Result<void, ConfigError> {
  return writeFileAtomic(path, text, { newFileMode: 0o600 })
    .map(() => undefined)
    .mapErr((e): ConfigError => {
      const file = displayPath(path);
      return { type: "config_write_failed", file, message: `${file}: could not be written (${e.message})` };
    });
}

export type RuleScope = "user" | "project" | "projectLocal";

/** The config file a scope's writes go to. */
export function configFileFor(scope: RuleScope, where: { keelHome: string; projectRoot: string }): string {
  const paths = configPaths(where.keelHome, where.projectRoot);
  return scope === "user" ? paths.user : scope === "project" ? paths.project : paths.projectLocal;
}

/** Adds a permission rule to the config file of `scope` (no duplicate). Used for "always allow". */
export function addPermissionRule(
  rule: string,
  behavior: PermissionBehavior,
  scope: RuleScope,
  where: { keelHome: string; projectRoot: string },
): Result<string, ConfigError> {
  if (scope === "projectLocal") {
    const ignored = ensureLocalConfigIgnored(where.projectRoot);
    if (ignored.isErr()) return err(ignored.error);
  }
  return editRuleList(configFileFor(scope, where), behavior, (list = []) =>
    list.includes(rule) ? list : [...list, rule],
  );
}

/** Takes every copy of a permission rule out of the config file of `scope` (none there: no change). */
export function removePermissionRule(
  rule: string,
  behavior: PermissionBehavior,
  scope: RuleScope,
  where: { keelHome: string; projectRoot: string },
): Result<string, ConfigError> {
  return editRuleList(configFileFor(scope, where), behavior, (list) => list?.filter((r) => r !== rule));
}

/**
 * Rewrites the file's `permissions.<behavior>` list (undefined when it has none); `change`
 * answering undefined leaves the file's permissions as they are. Returns the file's path.
 */
function editRuleList(
  path: string,
  behavior: PermissionBehavior,
  change: (list: unknown[] | undefined) => unknown[] | undefined,
): Result<string, ConfigError> {
  return updateConfigFile(path, (config) => {
    const permissions = (isObject(config.permissions) ? config.permissions : {}) as Record<string, unknown>;
    const current = permissions[behavior];
    const list = change(Array.isArray(current) ? current : undefined);
    if (list === undefined) return config;
    permissions[behavior] = list;
    config.permissions = permissions;
    return config;
  }).map(() => path);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const LOCAL_IGNORES = ["config.local.json"];

/** Makes `.keel/.gitignore` list `config.local.json`, so personal rules never get committed. */
export function ensureLocalConfigIgnored(projectRoot: string): Result<string, ConfigError> {
  const path = join(projectRoot, PROJECT_DIR, ".gitignore");
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (errnoCode(e) !== "ENOENT") {
      const file = displayPath(path);
      return err({
        type: "config_unreadable",
        file,
        message: `${file}: cannot be read (${errnoMessage(e)})`,
      });
    }
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const missing = LOCAL_IGNORES.filter((entry) => !lines.includes(entry) && !lines.includes(`/${entry}`));
  if (missing.length === 0) return ok(path);
  const prefix = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  return writeConfigText(path, text + prefix + missing.join("\n") + "\n").map(() => path);
}
