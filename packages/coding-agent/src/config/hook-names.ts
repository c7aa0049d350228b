// The hook names config may use: Keel's own (the extension contract's), the Claude Code events Keel
// runs with Claude Code's protocol, and the Claude Code events Keel cannot produce (accepted, said
// once to be inactive). No name stops Keel from starting: a name nobody knows is a warning with
// its close match; `keel config set` refuses it instead (config/settings.ts), as it refuses any key
// it does not know.
import { closestName } from "@keel/ai";
import { HOOK_NAMES } from "@keel/extension-sdk";
import type { ConfigDiagnostic } from "./errors.js";
import { isPlainObject } from "./merge.js";

/** Claude Code events Keel runs, with their JSON-on-stdin protocol (see kernel/claude-hooks.ts). */
export const CLAUDE_HOOK_NAMES = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "PostCompact",
  "SessionStart",
  "SessionEnd",
] as const;
export type ClaudeHookName = (typeof CLAUDE_HOOK_NAMES)[number];

/**
 * Claude Code events (its hooks reference) that have no counterpart in Keel: teams, worktrees,
 * elicitation, subagent lifecycle, the permission dialog's own hook. Their commands never run.
 */
export const INACTIVE_CLAUDE_HOOK_NAMES = [
  "PermissionRequest",
  "PermissionDenied",
  "PostToolBatch",
  "UserPromptExpansion",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "Elicitation",
  "ElicitationResult",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Setup",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
] as const;

const RUN = new Set<string>([...HOOK_NAMES, ...CLAUDE_HOOK_NAMES]);
const KNOWN = [...HOOK_NAMES, ...CLAUDE_HOOK_NAMES, ...INACTIVE_CLAUDE_HOOK_NAMES] as string[];

export type HookNameKind = "keel" | "claude" | "inactive" | "unknown";

export function hookNameKind(name: string): HookNameKind {
  if ((HOOK_NAMES as readonly string[]).includes(name)) return "keel";
  if ((CLAUDE_HOOK_NAMES as readonly string[]).includes(name)) return "claude";
  if ((INACTIVE_CLAUDE_HOOK_NAMES as readonly string[]).includes(name)) return "inactive";
  return "unknown";
}

/** The known hook name closest to a misspelt one (`PreTooluse` → `PreToolUse`). */
export function closestHookName(name: string): string | undefined {
  const lower = name.toLowerCase();
  return KNOWN.find((k) => k.toLowerCase() === lower) ?? closestName(name, KNOWN);
}

/** Why `name` is refused by `keel config set`, or undefined when it is a hook name someone defines. */
export function unknownHookMessage(name: string): string | undefined {
  if (hookNameKind(name) !== "unknown") return undefined;
  const near = closestHookName(name);
  return `"${name}" is not a hook event of Keel or Claude Code${near ? `; did you mean ${near}?` : "."} Keel's: ${HOOK_NAMES.join(", ")}; Claude Code's that Keel runs: ${CLAUDE_HOOK_NAMES.join(", ")}.`;
}

/**
 * Warnings for a file's hook names: one line for every Claude Code event Keel does not produce
 * (listed together), one line per name nobody knows (with its close match). Never an error.
 */
export function hookNameWarnings(hooks: unknown, file: string): ConfigDiagnostic[] {
  if (!isPlainObject(hooks)) return [];
  const names = Object.keys(hooks).filter((n) => !RUN.has(n));
  const inactive = names.filter((n) => hookNameKind(n) === "inactive");
  const out: ConfigDiagnostic[] = [];
  if (inactive.length > 0)
    out.push({
      level: "warning",
      file,
      message: `${file}: hooks ${inactive.join(", ")}: Claude Code event${inactive.length > 1 ? "s" : ""} Keel does not produce; ${inactive.length > 1 ? "their" : "its"} commands never run (inactive)`,
    });
  for (const name of names.filter((n) => hookNameKind(n) === "unknown")) {
    const near = closestHookName(name);
    out.push({
      level: "warning",
      file,
      message: `${file}: hooks.${name} is not a hook event of Keel or Claude Code${near ? ` (did you mean ${near}?)` : ""}; its commands never run`,
    });
  }
  return out;
}

/** One warning per Claude-shaped hook Keel will not run: another type (prompt, agent, http), or no command. */
export function hookTypeWarnings(hooks: unknown, file: string): ConfigDiagnostic[] {
  if (!isPlainObject(hooks)) return [];
  const out: ConfigDiagnostic[] = [];
  // An event that never runs was named once already (hookNameWarnings).
  for (const [event, list] of Object.entries(hooks).filter(([name]) => RUN.has(name))) {
    for (const group of Array.isArray(list) ? list : []) {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
      for (const hook of group.hooks) {
        if (!isPlainObject(hook)) continue;
        const problem =
          hook.type !== "command"
            ? `a "${String(hook.type)}" hook; Keel runs only "command" hooks`
            : typeof hook.command !== "string"
              ? "a command hook without a command"
              : undefined;
        if (problem)
          out.push({
            level: "warning",
            file,
            message: `${file}: hooks.${event}: ${problem}, so it never runs`,
          });
      }
    }
  }
  return out;
}
