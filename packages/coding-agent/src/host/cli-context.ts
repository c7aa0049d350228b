// What an extension's `keel <name>` command gets from Keel besides the terminal: its data folder
// (the one its runtime's dataDir() gives in a session) and its configuration from the user's
// config file, resolved as a session resolves it, with no project layer.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { err, type Result } from "neverthrow";
import type { ConfigError } from "../config/errors.js";
import { configPaths } from "../config/paths.js";
import { readJsonFile } from "../config/read.js";
import { type ExtensionConfigError, resolveExtensionConfig } from "./config.js";

/** `<home>/data/<id>`, created (0700) on first use. */
export function extensionDataDir(home: string, extensionId: string): string {
  const dir = join(home, "data", extensionId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function userExtensionConfig(
  definition: ExtensionDefinition,
  home: string,
): Result<unknown, ConfigError | ExtensionConfigError> {
  const file = configPaths(home, home).user;
  const read = readJsonFile(file);
  if (read.isErr()) return err(read.error);
  const extensions = ((read.value as { extensions?: unknown } | undefined)?.extensions ?? {}) as Record<
    string,
    { config?: unknown } | undefined
  >;
  const user = Object.fromEntries(Object.entries(extensions).map(([id, v]) => [id, v?.config]));
  const resolved = resolveExtensionConfig(definition, {
    user,
    project: undefined,
    userFile: file,
    projectFile: "",
  });
  return resolved.map((control) => control.current());
}
