// The vocabulary of permissions: modes, rules with their source, requests and decisions.
import type { ToolDeclaration } from "@keel/extension-sdk";
import type { PERMISSION_MODES } from "../config/schema.js";
import type { GateSandbox } from "./sandboxed.js";

/**
 * - default: reads inside the workspace run; edits, commands and anything outside the workspace ask.
 * - acceptEdits: as default, plus edits (and write redirects) inside the workspace run.
 * - plan: only reading inside the workspace (and read-only commands); everything else is denied.
 * - dontAsk: as default, but whatever would ask is denied.
 * - bypassPermissions: everything runs except deny rules (deny), explicit ask rules, dangerous
 *   commands (`rm -rf /`, force pushes, `curl | sh`), unparseable commands and writes to protected
 *   files (shell rc, ~/.ssh, ~/.keel, .git, .keel): those still ask, so a headless run denies them.
 */
export type PermissionMode = (typeof PERMISSION_MODES)[number];
export type PermissionBehavior = "allow" | "ask" | "deny";

/** Where a rule came from, so a UI can say why something was allowed. */
export type RuleSource =
  | "user"
  | "project"
  | "projectLocal"
  | "session"
  | "cli"
  /** Claude Code's settings files, read below Keel's own (config/claude-settings.ts). */
  | "claudeUser"
  | "claudeProject"
  | "claudeProjectLocal";

export interface PermissionRuleEntry {
  /** `Tool` or `Tool(specifier)`, e.g. `Bash(npm test:*)`, `Edit(src/**)`. */
  rule: string;
  behavior: PermissionBehavior;
  source: RuleSource;
}

export interface PermissionRequest {
  tool: string;
  args: unknown;
  mode: PermissionMode;
  rules: readonly PermissionRuleEntry[];
  /** The workspace root (the project): what "inside the workspace" means, and where rules resolve. */
  workspace: string;
  /**
   * Where the tools run (default: the workspace): relative paths in tool arguments and commands
   * resolve against it, as the tools resolve them.
   */
  cwd?: string;
  /**
   * The environment Bash commands start with (git's GIT_* variables, CDPATH). Default:
   * process.env without CDPATH, as the kernel's Bash tool runs them.
   */
  shellEnv?: Readonly<Record<string, string | undefined>>;
  /** The user's home directory, for `~` in paths and rules (default os.homedir()). Not the Keel home. */
  userHome?: string;
  /** The Keel home (trust.json, user config): writes there always ask. Default `$KEEL_HOME` or ~/.keel. */
  keelHome?: string;
  /**
   * What the tool declares: its access and which arguments are paths, patterns, commands or
   * URLs. Absent (or without access): undeclared, the most dangerous kind — asked about in
   * every mode but bypassPermissions, refused in plan mode.
   */
  declaration?: Pick<ToolDeclaration, "access" | "args">;
  /**
   * Set when the call runs a catalog entry (through ExecuteTool): it is judged as its own
   * identity `group:name`, never as the built-in tool a bare name might spell.
   */
  catalogEntry?: { group: string; name: string; bareName: boolean };
  /** "extension": the tool asks the user itself, so an ask here lets it through to its own dialog. */
  approval?: "kernel" | "extension";
  /**
   * The OS sandbox a Bash command would run in (see sandboxed.ts). Absent: judged by parsing
   * alone, as before the sandbox (a caller that runs nothing).
   */
  sandbox?: GateSandbox;
  /**
   * Test-only: every verdict of the shell parser becomes "allow", so a test can show what the
   * sandbox alone holds. Set only through createCodingAgent's `testing` option; no config has it.
   */
  forceParserAllow?: boolean;
}

export interface PermissionDecision {
  behavior: PermissionBehavior;
  /** Says why, in words fit for the model and the user. */
  reason: string;
  /** The rule that decided, when one did. */
  rule?: string;
  /**
   * Only on ask: the rules "always allow" may save, narrowest first — alternatives, each of which
   * alone allows this call (the exact command line, then prefixes that cover every part of it).
   */
  suggestions?: string[];
}
