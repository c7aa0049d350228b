// The TypeBox schema of the kernel's own config keys; anything else is kept and warned about once.
import { type Static, Type } from "@sinclair/typebox";
import { SANDBOX_KEYS, SandboxConfigSchema } from "../sandbox/settings.js";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const;

const RuleList = Type.Array(Type.String({ minLength: 1 }));

export const PermissionsConfigSchema = Type.Object({
  mode: Type.Optional(Type.Union(PERMISSION_MODES.map((m) => Type.Literal(m)))),
  allow: Type.Optional(RuleList),
  ask: Type.Optional(RuleList),
  deny: Type.Optional(RuleList),
});

export const HookCommandSchema = Type.Object({
  command: Type.String({ minLength: 1 }),
  /** Tool-name pattern for tool hooks; omitted = every tool. */
  matcher: Type.Optional(Type.String()),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
});

/**
 * Claude Code's shape: a matcher and its commands (`timeout` in seconds), copied from settings.json
 * as is. Hook types other than "command" (prompt, agent, http) are accepted and warned about once:
 * Keel runs only commands (config/hook-names.ts).
 */
export const ClaudeHookSchema = Type.Object({
  type: Type.String({ minLength: 1 }),
  command: Type.Optional(Type.String({ minLength: 1 })),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
});
export const ClaudeHookGroupSchema = Type.Object({
  matcher: Type.Optional(Type.String()),
  hooks: Type.Array(ClaudeHookSchema),
});

export const KeelConfigSchema = Type.Object({
  model: Type.Optional(
    Type.String({ pattern: "^[^/\\s]+/\\S+$", errorMessage: 'must look like "provider/model-id"' }),
  ),
  /**
   * Custom OpenAI-compatible providers. Its schema belongs to @keel/ai (custom-models); here it is
   * carried as an opaque value and validated by whoever registers the providers.
   */
  providers: Type.Optional(Type.Unknown()),
  permissions: Type.Optional(PermissionsConfigSchema),
  extensions: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Object({
        enabled: Type.Optional(Type.Boolean()),
        /** Fail the start when this extension cannot be loaded (instead of one diagnostic). */
        required: Type.Optional(Type.Boolean()),
        config: Type.Optional(Type.Unknown()),
      }),
    ),
  ),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** Folders outside the project the agent may read and edit (Claude Code's `additionalDirectories`, `--add-dir`). */
  additionalDirectories: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Claude Code's files: `userFiles: false` stops Keel reading ~/.claude (settings, commands, skills, agents, CLAUDE.md). */
  claude: Type.Optional(Type.Object({ userFiles: Type.Optional(Type.Boolean()) })),
  /** Event name → commands to run. Exactly what an untrusted project must never get to run. */
  hooks: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.Union([HookCommandSchema, ClaudeHookGroupSchema]))),
  ),
  compaction: Type.Optional(
    Type.Object({ threshold: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })) }),
  ),
  /** Model streams: the idle timeout, the bound on one reply, retries (see @keel/ai's Bounds). */
  stream: Type.Optional(
    Type.Object({
      idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
      replyTimeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
      maxReplyChars: Type.Optional(Type.Integer({ minimum: 1024 })),
      maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    }),
  ),
  /** Extension packages installed with `keel install` (name, the version npm resolved, the spec asked for). */
  packages: Type.Optional(
    Type.Array(
      Type.Object({ name: Type.String({ minLength: 1 }), version: Type.String(), spec: Type.String() }),
    ),
  ),
  /** The OS sandbox around the commands the model runs (resolved by sandbox/settings.ts: a project only narrows it). */
  sandbox: Type.Optional(SandboxConfigSchema),
  /** Child agents (subagents): how many may run at once. */
  agents: Type.Optional(
    Type.Object({ maxConcurrent: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })) }),
  ),
});

export type KeelConfig = Static<typeof KeelConfigSchema> & Record<string, unknown>;
export type PermissionsConfig = Static<typeof PermissionsConfigSchema>;
export type HookCommand = Static<typeof HookCommandSchema>;
export type ClaudeHookGroup = Static<typeof ClaudeHookGroupSchema>;

/** Keys the kernel understands, per object path; others are kept but reported. */
export const KNOWN_KEYS: Record<string, readonly string[]> = {
  "": [
    "$schema",
    "model",
    "providers",
    "permissions",
    "extensions",
    "env",
    "additionalDirectories",
    "claude",
    "hooks",
    "compaction",
    "agents",
    "stream",
    "packages",
    "sandbox",
  ],
  "/permissions": ["mode", "allow", "ask", "deny"],
  "/compaction": ["threshold"],
  "/claude": ["userFiles"],
  "/agents": ["maxConcurrent"],
  "/stream": ["idleTimeoutMs", "replyTimeoutMs", "maxReplyChars", "maxRetries"],
  "/sandbox": SANDBOX_KEYS,
};
