// `keel config get|set|unset|list`: one setting by its dotted key (`stream.maxRetries`,
// `permissions.allow`, `extensions.todo.enabled`) in the user's or the project's config file,
// validated as loading validates the file, so a set that loading would refuse is refused here
// with the same message and the file left as it was.
import { closestName } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import type { ConfigError } from "./errors.js";
import { hookNameWarnings, hookTypeWarnings, unknownHookMessage } from "./hook-names.js";
import { isPlainObject } from "./merge.js";
import { configPaths, displayPath } from "./paths.js";
import { readConfigText, validateAgainst } from "./read.js";
import { KeelConfigSchema, KNOWN_KEYS } from "./schema.js";
import { type ConfigObject, updateConfigFile } from "./write.js";

export type SettingScope = "user" | "project";

export type SettingError = ConfigError | { type: "setting_key"; message: string };

export interface SettingsPlace {
  keelHome: string;
  projectRoot: string;
}

export function settingsFile(scope: SettingScope, where: SettingsPlace): string {
  const paths = configPaths(where.keelHome, where.projectRoot);
  return scope === "user" ? paths.user : paths.project;
}

/** `a.b.c` as its segments; empty segments are refused. */
function keyPath(key: string): Result<string[], SettingError> {
  const segments = key.split(".");
  if (key === "" || segments.some((s) => s === ""))
    return err({ type: "setting_key", message: `"${key}" is not a key; keys look like stream.maxRetries` });
  // The kernel's keys are known: a typo is refused with the close match rather than written.
  const [top, second] = segments;
  const topKnown = KNOWN_KEYS[""]!;
  if (!topKnown.includes(top!)) {
    const near = closestName(top!, topKnown);
    return err({
      type: "setting_key",
      message: `unknown key "${top}"${near ? `; did you mean ${near}?` : "."} Known keys: ${topKnown.filter((k) => k !== "$schema").join(", ")}.`,
    });
  }
  const nested = KNOWN_KEYS[`/${top}`];
  if (nested && second !== undefined && !nested.includes(second)) {
    const near = closestName(second, nested);
    return err({
      type: "setting_key",
      message: `unknown key "${top}.${second}"${near ? `; did you mean ${top}.${near}?` : "."} Known keys under ${top}: ${nested.join(", ")}.`,
    });
  }
  return ok(segments);
}

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** The value a command-line word stands for: JSON when it parses (numbers, booleans, arrays, objects, "quoted"), else the word as a string. */
export function parseSettingValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function readLayer(path: string): Result<ConfigObject, SettingError> {
  const read = readConfigText(path);
  if (read.isErr()) return err(read.error);
  const value = read.value?.value ?? {};
  return ok(isPlainObject(value) ? value : {});
}

/** The value at `key` in the scope's file (`undefined`: not set there). */
export function getSetting(
  key: string,
  scope: SettingScope,
  where: SettingsPlace,
): Result<unknown, SettingError> {
  const path = keyPath(key);
  if (path.isErr()) return err(path.error);
  return readLayer(settingsFile(scope, where)).map((layer) => at(layer, path.value));
}

/** Sets `key` to `value` in the scope's file, if the file would then load; returns the file. */
export function setSetting(
  key: string,
  value: unknown,
  scope: SettingScope,
  where: SettingsPlace,
): Result<string, SettingError> {
  return changeSetting(key, scope, where, (parent, last) => {
    parent[last] = value;
  });
}

/** Removes `key` from the scope's file (nothing to do when it is not set); returns the file. */
export function unsetSetting(
  key: string,
  scope: SettingScope,
  where: SettingsPlace,
): Result<string, SettingError> {
  return changeSetting(key, scope, where, (parent, last) => {
    delete parent[last];
  });
}

function changeSetting(
  key: string,
  scope: SettingScope,
  where: SettingsPlace,
  change: (parent: Record<string, unknown>, last: string) => void,
): Result<string, SettingError> {
  const path = keyPath(key);
  if (path.isErr()) return err(path.error);
  const file = settingsFile(scope, where);
  const current = readLayer(file);
  if (current.isErr()) return err(current.error);
  const next = structuredClone(current.value);
  let parent: Record<string, unknown> = next;
  for (const segment of path.value.slice(0, -1)) {
    const child = parent[segment];
    if (child !== undefined && !isPlainObject(child))
      return err({
        type: "setting_key",
        message: `${displayPath(file)}: ${segment} holds ${JSON.stringify(child)}, not an object; cannot set ${key} inside it`,
      });
    if (child === undefined) parent[segment] = {};
    parent = parent[segment] as Record<string, unknown>;
  }
  change(parent, path.value.at(-1)!);
  // A hook event nobody knows is only a warning when a file is loaded (Keel must start), but
  // here it is refused with its close match, as every unknown key is.
  const [top, event] = path.value;
  if (top === "hooks") {
    const names = event !== undefined ? [event] : Object.keys(isPlainObject(next.hooks) ? next.hooks : {});
    const refused = names.map(unknownHookMessage).find((m) => m !== undefined);
    if (refused) return err({ type: "setting_key", message: refused });
  }
  const valid = validateAgainst(KeelConfigSchema, next, file);
  if (valid.isErr()) return err(valid.error);
  return updateConfigFile(file, () => next).map(() => file);
}

/**
 * What loading will say about the hooks a set leaves in the file (a Claude Code event Keel does
 * not produce, a hook type it does not run), so `keel config set` says it at once.
 */
export function settingWarnings(key: string, scope: SettingScope, where: SettingsPlace): string[] {
  if (key.split(".")[0] !== "hooks") return [];
  const layer = readLayer(settingsFile(scope, where));
  if (layer.isErr()) return [];
  const file = displayPath(settingsFile(scope, where));
  return [...hookNameWarnings(layer.value.hooks, file), ...hookTypeWarnings(layer.value.hooks, file)].map(
    (d) => d.message,
  );
}

/** Every setting of a layer as [dotted key, value], leaves first-level objects walked. */
export function flattenSettings(layer: unknown, prefix = ""): [string, unknown][] {
  if (!isPlainObject(layer)) return prefix === "" ? [] : [[prefix, layer]];
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(layer)) {
    const dotted = prefix === "" ? key : `${prefix}.${key}`;
    if (isPlainObject(value) && Object.keys(value).length > 0) out.push(...flattenSettings(value, dotted));
    else out.push([dotted, value]);
  }
  return out;
}

/** The settings of the scope's file, flattened (an absent file has none). */
export function listSettings(
  scope: SettingScope,
  where: SettingsPlace,
): Result<[string, unknown][], SettingError> {
  return readLayer(settingsFile(scope, where)).map((layer) => flattenSettings(layer));
}
