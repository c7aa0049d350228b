// Creation's configuration steps: the layered config (project layers only when trusted), the
// folders and rules this session adds, and what the model calls and compaction take from config.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { StreamOptions } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import { DEFAULT_COMPACTION } from "../../compaction/policy.js";
import { type LoadedConfig, loadConfig } from "../../config/load.js";
import { mergeLayers } from "../../config/merge.js";
import type { KeelConfig } from "../../config/schema.js";
import { realpathOrResolved } from "../../fs/paths.js";
import { expandHome } from "../../permissions/paths.js";
import { RULE_WORD } from "../../permissions/rules.js";
import type { PermissionRuleEntry } from "../../permissions/types.js";
import { createDebugLog } from "../debug-log.js";
import type { CodingAgentError, CodingAgentOptions } from "../types.js";
import type { Note } from "./project-trust.js";

/** Keel's and Claude Code's config files, layered; the project's only when it is trusted. */
export function loadSessionConfig(
  options: CodingAgentOptions,
  where: { cwd: string; home: string; userHome: string; trusted: boolean },
  note: Note,
): Result<LoadedConfig, CodingAgentError> {
  const { cwd, home, trusted, userHome } = where;
  const loaded = loadConfig({
    cwd,
    home,
    trusted,
    reportUntrusted: false,
    userHome,
    ...(options.settings ? { sessionSettings: options.settings } : {}),
  });
  if (loaded.isErr()) return err({ type: "config", message: loaded.error.message });
  for (const d of loaded.value.diagnostics) note(d.level, d.message);
  return ok(loaded.value);
}

/**
 * Extra folders (config, Claude Code's additionalDirectories, --add-dir): read and edited as the
 * project is, and writable inside the sandbox. Trust recorded the config's (trust/surface.ts).
 */
export function extraDirectories(
  config: KeelConfig,
  options: CodingAgentOptions,
  where: { cwd: string; userHome: string },
  note: Note,
): string[] {
  return [...(config.additionalDirectories ?? []), ...(options.additionalDirectories ?? [])].flatMap((d) => {
    const dir = realpathOrResolved(resolve(where.cwd, expandHome(d, where.userHome)));
    // The sandbox cannot bind a folder that is not there: said once, and left out.
    if (existsSync(dir)) return [dir];
    note("warning", `additional directory ${d} (${dir}) does not exist; ignored`);
    return [];
  });
}

/** Config's rules, then the extra folders' read and edit rules, then this run's (`--allowedTools` …). */
export function sessionRules(
  loaded: LoadedConfig,
  extraDirs: readonly string[],
  options: CodingAgentOptions,
): PermissionRuleEntry[] {
  return [
    ...loaded.rules,
    ...extraDirs.flatMap((d) =>
      ([RULE_WORD.read, RULE_WORD.edit] as const).map((word) => ({
        rule: `${word}(/${d}/**)`,
        behavior: "allow" as const,
        source: "cli" as const,
      })),
    ),
    ...(["allow", "ask", "deny"] as const).flatMap((behavior) =>
      (options.rules?.[behavior] ?? []).map((rule) => ({ rule, behavior, source: "cli" as const })),
    ),
  ];
}

export function compactionSettings(config: KeelConfig) {
  return {
    ...DEFAULT_COMPACTION,
    ...(config.compaction?.threshold ? { threshold: config.compaction.threshold } : {}),
  };
}

/**
 * What every model call of the session is given: the caller's options over config's stream
 * bounds, and a log line for what the vendor SDKs would print — the debug log (and `keel --debug`),
 * never the terminal.
 */
export function sessionStreamOptions(
  config: KeelConfig,
  options: CodingAgentOptions,
  home: string,
  emit: (event: { type: "debug"; source: string; message: string }) => void,
): StreamOptions {
  const writeDebug = createDebugLog(home);
  return {
    onLog: (line) => {
      const text = `${line.level}: ${line.message}`;
      writeDebug(line.source, text);
      emit({ type: "debug", source: line.source, message: text });
    },
    ...withStreamConfig(config.stream, options.streamOptions ?? {}),
  };
}

/** Config's stream bounds under the caller's options (which win, field by field). */
function withStreamConfig(
  stream:
    | { idleTimeoutMs?: number; replyTimeoutMs?: number; maxReplyChars?: number; maxRetries?: number }
    | undefined,
  options: StreamOptions,
): StreamOptions {
  if (!stream) return options;
  return {
    ...(stream.idleTimeoutMs !== undefined ? { idleTimeoutMs: stream.idleTimeoutMs } : {}),
    ...(stream.replyTimeoutMs !== undefined ? { replyTimeoutMs: stream.replyTimeoutMs } : {}),
    ...(stream.maxReplyChars !== undefined ? { maxReplyChars: stream.maxReplyChars } : {}),
    ...options,
    ...(stream.maxRetries !== undefined || options.retry
      ? {
          retry: {
            ...(stream.maxRetries !== undefined ? { maxRetries: stream.maxRetries } : {}),
            ...options.retry,
          },
        }
      : {}),
  };
}

/** Claude Code's user files unless config `claude.userFiles` is false (config/load.ts decides). */
export function claudeHomeOf(loaded: LoadedConfig, userHome: string): string | undefined {
  return loaded.sources.find((s) => s.layer === "claudeUser")?.status === "opted_out"
    ? undefined
    : join(userHome, ".claude");
}

/** `extensions.<id>.config` of one config layer, by extension id. */
export function extensionConfigOf(layer: KeelConfig | undefined): Record<string, unknown> {
  const extensions = (layer?.extensions ?? {}) as Record<string, { config?: unknown }>;
  return Object.fromEntries(Object.entries(extensions).map(([id, v]) => [id, v?.config]));
}

/** The project's and project-local layers of extension configuration, merged (trusted projects only). */
export function projectExtensionConfig(
  loaded: LoadedConfig,
  trusted: boolean,
): Record<string, unknown> | undefined {
  if (!trusted) return undefined;
  const project = extensionConfigOf(loaded.layers.project);
  const local = extensionConfigOf(loaded.layers.projectLocal);
  return Object.fromEntries(
    [...new Set([...Object.keys(project), ...Object.keys(local)])].map((id) => [
      id,
      mergeLayers(project[id], local[id]),
    ]),
  );
}
