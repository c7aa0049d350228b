// The hook names config may use: Keel's own (the extension contract's) and the Claude Code events
// Keel runs with Claude Code's protocol. Any other name is an error naming the file and the field,
// never a hook that silently never fires.
import { HOOK_NAMES } from "@keel/extension-sdk";
import type { ConfigError } from "./errors.js";
import { displayPath } from "./paths.js";
import type { KeelConfig } from "./schema.js";

/** Claude Code events Keel runs, with their JSON-on-stdin protocol (see kernel/claude-hooks.ts). */
export const CLAUDE_HOOK_NAMES = [
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "UserPromptSubmit",
  "SessionStart",
] as const;
export type ClaudeHookName = (typeof CLAUDE_HOOK_NAMES)[number];

export function checkHookNames(config: KeelConfig, path: string, userHome?: string): ConfigError | undefined {
  const names = Object.keys(config.hooks ?? {});
  const known = new Set<string>([...HOOK_NAMES, ...CLAUDE_HOOK_NAMES]);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length === 0) return undefined;
  const file = displayPath(path, userHome);
  const list = `Keel's ${HOOK_NAMES.join(", ")}; Claude Code's ${CLAUDE_HOOK_NAMES.join(", ")}`;
  const errors = unknown.map((n) => ({
    path: `/hooks/${n}`,
    message: `is not a hook Keel runs (known: ${list})`,
  }));
  return {
    type: "config_invalid",
    file,
    errors,
    message: errors.map((e) => `${file}: ${e.path} ${e.message}`).join("\n"),
  };
}
