// The kernel's public surface: options, the CodingAgent handle, its events and errors.
// Everything an agent UI does goes through this; events are JSON-safe.

import type {
  AiError,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  StreamOptions,
  ThinkingLevel,
  Usage,
} from "@keel/ai";
import type {
  AgentRecord,
  AgentRunResult,
  CommandInfo,
  CommandSpec,
  Diagnostic,
  ExtensionDefinition,
  ExtensionUI,
  MentionCompletion,
  PromptOptions,
  RunStopReason,
  ToolAccess,
  ToolPreview,
} from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { GateAnswer } from "../permissions/gate.js";
import type { PermissionBehavior, RuleSource } from "../permissions/types.js";
import type { BuiltinTool } from "../tools/shared.js";
import type { TextFileAccess } from "../tools/text-files.js";
import type { TrustPreview } from "./trust-preview.js";

export type { TextFileAccess, TextFileError } from "../tools/text-files.js";

/**
 * The dialog's answer: the gate's answers, plus "this exact call" for extension questions that
 * offer it. A denial of a tool call may stop the run (`stopRun`): the call's result carries the
 * reason and tells the model to wait, and the run ends once the tool batch is done, so the user
 * can say what to do instead.
 */
export type ApprovalAnswer =
  | GateAnswer
  | { decision: "allow_exact" }
  | { decision: "deny"; reason?: string; stopRun?: boolean };

export type PermissionModeName = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** What a front end shows of a tool call: its one line, and what it may do (absent: undeclared). */
export interface ToolCallInfo {
  summary: string;
  access?: ToolAccess;
}

/**
 * What an approval dialog may show of what is about to happen: a tool's declared preview
 * (`ToolPreview`), or what an extension's question shows (which may also be JSON).
 */
export interface ApprovalPreview {
  format: ToolPreview["format"] | "json";
  text: string;
  /** The file it is about. */
  path?: string;
}

/** What the host's approval dialog is asked: a tool call the permission gate holds, or an extension's question. */
export interface ToolApprovalRequest {
  /** "tool": the permission gate asks about a call; "extension": an extension asks through `approve`. */
  kind: "tool" | "extension";
  /** The permission identity: `Bash`, `Edit`, a catalog entry's `group:name`. */
  toolName: string;
  /** Empty when the question is not about one tool call. */
  toolCallId: string;
  args: Record<string, unknown>;
  /** Why approval is needed (the permission decision's reason, or the extension's message). */
  reason: string;
  /** Set when a subagent asks: the dialog names it. */
  agent?: { id: string; title: string };
  /** The extension asking (kind "extension"). */
  extensionId?: string;
  /** A title an extension gave its question. */
  title?: string;
  /** The call in one line, as the tool summarises it (kind "tool"). */
  summary?: string;
  preview?: ApprovalPreview;
  /**
   * The rules "always" may save, narrowest first; the dialog may let the user pick one and sends
   * it back in the answer. Empty: "always" is not offered.
   */
  alwaysRules: string[];
  /**
   * Where an "always" answer is saved (a file: the project's `.keel/config.local.json`), for the
   * dialog to say. Absent while `alwaysRules` is not empty: "always" lasts for this session only
   * (an untrusted project's config is neither read nor written).
   */
  alwaysSavesTo?: string;
  /** An extension question may offer "always" (the extension keeps it; no rule is saved). */
  offersAlways?: boolean;
  /** An extension may offer "allow this exact call" (bound to these arguments, expiring). */
  offersExactCall?: boolean;
  /** Aborted when the question no longer matters (the run or the tool was aborted). */
  signal?: AbortSignal;
}

/** What a host (TUI, print mode, RPC) offers the kernel. Everything optional: headless by default. */
export interface HostUI extends Partial<ExtensionUI> {
  /** Permission prompts. Absent → headless: `ask` resolves to deny with a reason for the model. */
  approve?: (request: ToolApprovalRequest) => Promise<ApprovalAnswer>;
}

export type SessionChoice =
  | { mode: "new" }
  /**
   * The most recent session of this cwd, or a new one when there is none. `readOnly`: open it
   * without the lock to look at it (prompts are refused; there must be one to open).
   */
  | { mode: "continue"; readOnly?: boolean }
  | { mode: "resume"; session: string; readOnly?: boolean }
  | { mode: "fork"; session: string; entryId?: string }
  /** Nothing journaled. */
  | { mode: "ephemeral" };

/**
 * An extension the kernel loads itself, when a session activates it: nothing of its code is read
 * when config turns it off (`extensions.<id>.enabled: false`). A load that fails (or yields another
 * id) is rolled back alone like a failed activation; a `required` one fails the start.
 */
export interface ExtensionModule {
  /** The id its definition has. */
  id: string;
  load(): Promise<ExtensionDefinition>;
}

export interface CodingAgentOptions {
  cwd: string;
  /** A catalog model, or "provider/id" looked up in the catalog and custom config. */
  model?: Model | string;
  /** ~/.keel by default; KEEL_HOME overrides it. */
  home?: string;
  /** The user's home directory, where Claude Code's ~/.claude lives; default os.homedir(). */
  userHome?: string;
  /**
   * Permission rules for this run only (`--allowedTools`, `--disallowedTools`), source "cli":
   * never written anywhere. A deny here wins over any allow, as every deny does.
   */
  rules?: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] };
  /** Folders outside the project the agent may read and edit for this run (`--add-dir`). */
  additionalDirectories?: readonly string[];
  session?: SessionChoice;
  /** Where session files live; default <home>/sessions/<cwd slug>. */
  sessionDir?: string;
  permissionMode?: PermissionModeName;
  maxTurns?: number;
  appendSystemPrompt?: string;
  /**
   * Settings in Claude Code's shape for this session only (`--settings`): a layer above every
   * settings file, read whether or not the project is trusted (the user gave it). `source` names
   * it in messages (the file, or "--settings").
   */
  settings?: { source: string; value: unknown };
  /** Replaces Keel's opening instructions in the system prompt (`--system-prompt`); tools, context files and the rest stay. */
  systemPrompt?: string;
  /**
   * Extensions composed by the caller (e.g. the official ones), loaded first: definitions, or
   * modules whose code loads only when a session activates them (see ExtensionModule).
   */
  extensions?: (ExtensionDefinition | ExtensionModule)[];
  /** Extension files or folders to load (`-e`). */
  extensionPaths?: string[];
  /** Load ~/.keel/extensions and (trusted projects only) .keel/extensions. Default true. */
  discoverExtensions?: boolean;
  ui?: HostUI;
  /**
   * The front end's own commands (source "host": /quit, /new, /resume …), registered before any
   * extension loads so their names are reserved like the built-in ones. More can come later
   * through `agent.commands.registerCommands`.
   */
  commands?: readonly CommandSpec[];
  /**
   * The host's own layer of extension configuration for this session, by extension id (an
   * editor's MCP servers: `{ mcp: { servers: {…} } }`). Validated like a file's layer, applied
   * over the user's and the project's, never written; read whether or not the project is trusted,
   * since the user chose it in their host.
   */
  extensionConfig?: Record<string, unknown>;
  /**
   * Where Read, Edit and Write get and put text when the host keeps its own view of files (an
   * editor's unsaved buffers, over ACP's fs/read_text_file and fs/write_text_file). The permission
   * gate, the sandbox's path rules and file history stay the kernel's, as for the disk.
   */
  textFiles?: TextFileAccess;
  /**
   * Subscribed before anything happens, so it also hears what creation itself emits
   * (session_start, recovery, startup diagnostics); `subscribe` only hears later events.
   */
  onEvent?: (event: CodingAgentEvent) => void;
  /** Deadline for each extension hook call (activation gets twice this). Default 5000 ms. */
  hookDeadlineMs?: number;
  /** Child agents running at once (config `agents.maxConcurrent`); default 4. */
  maxConcurrentAgents?: number;
  /** Passed to every model call (apiKey, reasoning, fetch for tests, retry policy). */
  streamOptions?: StreamOptions;
  /**
   * How hard the model thinks ("off", "low", "medium", "high", …), mapped onto what the model
   * accepts. Absent: the session's last choice, else `streamOptions.reasoning`, else the
   * model's default (see `CodingAgent.thinking`).
   */
  thinking?: ThinkingLevel;
  /**
   * For tests only; no config or project can set these. `forceParserAllow`: every verdict of the
   * shell parser becomes "allow", so only the OS sandbox stands between a command and its
   * effects. `lookup`: resolves the hosts the sandbox's proxy connects to (a stub, so no test
   * sends a packet off this machine).
   */
  testing?: {
    forceParserAllow?: boolean;
    /**
     * More built-in tools, made for the session's working folder as `createBuiltinTools` makes
     * its own: a test stands one in for a new file in `src/tools/` (its declaration is all the
     * kernel and front ends go by).
     */
    builtinTools?: (cwd: string) => BuiltinTool[];
    lookup?: (host: string) => Promise<{ address: string; family: number }>;
  };
}

/** Why a session could not be used, for hosts that say how to go on (e.g. open read-only, fork). */
export type SessionProblem =
  /** Another live process holds the writer lock. */
  | "locked"
  /** The journal opened read-only (damage, unknown entry types, newer format, or asked for). */
  | "read_only"
  /** The file asked for (or the newest one) is damaged or empty and cannot be opened. */
  | "damaged"
  /** Writing to the journal failed (disk full, I/O error). */
  | "journal";

export type CodingAgentError =
  | { type: "config"; message: string }
  | { type: "model"; message: string }
  | { type: "session"; message: string; problem?: SessionProblem }
  | { type: "extension"; message: string }
  | { type: "busy"; message: string }
  | { type: "closed"; message: string }
  /** A `/name` no command has; `suggestion` is the close match, if one is. */
  | { type: "unknown_command"; message: string; name: string; suggestion?: string }
  /** A command that failed (its own error, a throw, bad arguments). */
  | { type: "command"; message: string };

/** Who blocked a tool call: a deny rule, the mode, nobody to ask, the user, an extension's policy. */
export type PermissionDenialSource = "rule" | "mode" | "headless" | "user" | "policy";

/** A tool call that did not run because the permission gate or an extension's policy blocked it. */
export interface PermissionDenial {
  toolCallId: string;
  /** The identity judged: `Bash`, `Edit`, a catalog entry's `group:name`. */
  toolName: string;
  /** What it would have done, at most 200 characters (the command, the path, or the arguments as JSON). */
  input: string;
  /** Why, as the model was told. */
  reason: string;
  by: PermissionDenialSource;
  /** Set in a RunSummary for a call a child agent made during the run. */
  agentId?: string;
}

/**
 * Why a run failed: the provider's typed error as @keel/ai classified it (`http` with `status`,
 * `reason`, `endpoint` and `hint`; `network` with `reason`, `code`, `proxy`; …), the loop's
 * `internal`, or the kernel's `journal` (the session file could not be written).
 */
export type RunError = AiError | { type: "internal" | "journal"; message: string };

export interface RunSummary {
  stopReason: RunStopReason;
  turns: number;
  usage: Usage;
  /** The final assistant text of the run. */
  text: string;
  durationMs: number;
  error?: RunError;
  /** Steering or follow-up messages that never reached the model (the run ended first). */
  unsent: string[];
  /** Child agents that used the model during this run, with what each used (not included in `usage`). */
  children?: { agentId: string; title: string; usage: Usage }[];
  /** Every tool call of the run that was blocked (its child agents' included, with their id), in order. */
  permissionDenials: PermissionDenial[];
  /** "denial": the user denied a tool call and asked to stop the run (stopReason is "aborted"). */
  stoppedBy?: "denial";
  /**
   * The run failed before the model answered anything: its prompt was taken back out of the
   * conversation (it is in `unsent`), so a retry does not send it twice.
   */
  promptWithdrawn?: boolean;
}

/** A permission rule in force and where it came from (`file` for rules read from config). */
export interface PermissionRuleInfo {
  rule: string;
  behavior: PermissionBehavior;
  source: RuleSource;
  file?: string;
}

/** Where a rule added from a UI is kept: a config file, or this session only. */
export type PermissionRuleScope = "user" | "project" | "projectLocal" | "session";

/** What a rewind or tree move may restore: the conversation, the files Keel's tools changed, or both. */
export type RestoreChoice = "conversation" | "code" | "both";

/** The files a move would put back, before it happens (for a dialog to show). */
export interface FileChanges {
  /** Display paths; "delete": the file did not exist then and is removed. */
  files: { path: string; action: "restore" | "delete" }[];
  /** Changed by Keel but not kept (too large, unreadable): left as they are. */
  unrestorable: { path: string; reason: string }[];
  /** Calls on the branch left behind whose effects Keel cannot undo (Bash, extension tools). */
  notRestored: string[];
}

/** What a code restore did. */
export interface FilesRestored extends FileChanges {
  /** Files that could not be written back, with why. */
  failed: { path: string; reason: string }[];
}

/** A shell command the user ran (`!cmd`): its output is in the conversation from now on. */
export interface ShellRun {
  command: string;
  exitCode: number | null;
  output: string;
}

/** A prompt with what comes with it: images, as image blocks (refused for models without vision). */
export interface PromptInput {
  text: string;
  images?: ImageContent[];
  /** This run only: the model it runs on (unknown: a warning, and the session's model runs it). */
  model?: string;
  /** This run only: permission rules allowed until it ends (a command file's `allowed-tools`). */
  allow?: readonly string[];
}

export type CompactionReason = "threshold" | "overflow" | "manual";

/** Events a UI renders. Agent-loop events pass through with their own `type`. */
export type CodingAgentEvent =
  | { type: "session_start"; sessionId: string; sessionFile?: string; model: string; tools: string[] }
  | { type: "run_start"; prompt: string }
  | { type: "turn_start"; turn: number }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; message: Message; event: AssistantMessageEvent }
  | { type: "message_end"; message: Message }
  /**
   * A tool call starts: `summary` is its one line as the tool describes it, `access` what it
   * may do as declared (absent: undeclared).
   */
  | {
      type: "tool_start";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      summary: string;
      access?: ToolAccess;
    }
  /** A tool's progress: what it has so far (`text`), and its structured details when it gives any. */
  | { type: "tool_update"; toolCallId: string; toolName: string; text: string; details?: unknown }
  | {
      type: "tool_end";
      toolCallId: string;
      toolName: string;
      isError: boolean;
      text: string;
      details?: unknown;
    }
  | { type: "turn_end"; turn: number }
  | { type: "run_end"; summary: RunSummary }
  | { type: "compaction_start"; reason: CompactionReason; tokensBefore: number }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      tokensBefore: number;
      tokensAfter: number;
      ok: boolean;
      error?: string;
    }
  | { type: "capability_notice"; text: string }
  | { type: "recovery"; text: string }
  | { type: "diagnostic"; diagnostic: Diagnostic }
  | { type: "status"; key: string; text: string | undefined }
  | { type: "widget"; key: string; lines: string[] | undefined }
  | { type: "notify"; message: string; level: "info" | "warning" | "error" }
  /** A model request failed and is retried after `delayMs` (attempt N of at most `maxRetries`). */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; message: string; error: AiError }
  /** A tool call blocked by the permission gate or an extension's policy (it did not run). */
  | {
      type: "permission_denied";
      toolCallId: string;
      toolName: string;
      input: string;
      reason: string;
      by: PermissionDenialSource;
    }
  /** A child agent's own event, as it happens (its tool calls, text, approvals asked). */
  | { type: "agent_event"; agentId: string; title: string; event: CodingAgentEvent }
  /** A child agent started or ended; `toolCallId`: the parent's call that started it, when one did. */
  | {
      type: "agent_start";
      agentId: string;
      title: string;
      sessionId: string;
      sessionFile?: string;
      background: boolean;
      toolCallId?: string;
    }
  | { type: "agent_end"; agentId: string; title: string; status: string; usage: Usage; turns: number }
  /** A line of an extension's (or the kernel's) debug log. */
  | { type: "debug"; source: string; message: string };

export interface SessionTreeNode {
  id: string;
  parentId: string | null;
  type: string;
  /** One-line description (role + first words, label, …). */
  text: string;
  label?: string;
  onCurrentBranch: boolean;
  isHead: boolean;
  /** Journal bookkeeping (T1/T2, extension state, model changes, tool results): hidden by default. */
  internal: boolean;
  /** ISO 8601. */
  timestamp: string;
}

/** One completion of an extension's mention: `@<prefix>:<ref>`. */
export interface MentionCompletionInfo extends MentionCompletion {
  prefix: string;
  /** The extension that answered. */
  source: string;
}

export type { CommandInfo, PromptOptions } from "@keel/extension-sdk";

/** What a command that ran gave: something to show and/or a prompt to send next. */
export interface CommandOutcome {
  message?: string;
  prompt?: string;
  /** How the prompt runs: pass it on with it (`agent.prompt({ text: prompt, ...promptOptions })`). */
  promptOptions?: PromptOptions;
}

/**
 * The session's one command registry (`agent.commands`), live: built-in commands, the front
 * end's, extensions', skills', MCP prompts and a project's command files. The clash rules are the
 * SDK's (see CommandSpec).
 */
export interface AgentCommands {
  /** Every command now, JSON-safe (name, description, argumentHint, source, interactive). */
  list(): CommandInfo[];
  get(name: string): CommandSpec | undefined;
  /**
   * Runs `/name args`. An unknown name is an `unknown_command` error with the close match, never
   * a prompt; a command's own failure is a `command` error.
   */
  run(line: string, options?: { signal?: AbortSignal }): Promise<Result<CommandOutcome, CodingAgentError>>;
  /** Called after every change (a command added or removed); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /**
   * Registers specs (each with its own source) under the clash rules; a refused one is reported
   * as one diagnostic and the others stay. Returns the function that removes them all again.
   */
  registerCommands(specs: readonly CommandSpec[]): () => void;
}

export interface ContextUsage {
  /** Estimated tokens the next request would carry. */
  tokens: number;
  contextWindow: number;
  percent: number;
}

export interface CodingAgent {
  readonly sessionId: string;
  /** Undefined for ephemeral sessions. */
  readonly sessionFile: string | undefined;
  readonly cwd: string;
  /** The project root trust and project config apply to. */
  readonly projectRoot: string;
  readonly isRunning: boolean;
  model(): Model;
  /** Names of the tools the model is offered, in order (fixed for the session). */
  toolNames(): string[];
  /**
   * What a call of `toolName` (a resident tool or a catalog entry's `group:name`) is shown as:
   * its one-line summary and declared access, from the tool's own declaration. For calls a host
   * did not see start (a resumed session's history).
   */
  describeToolCall(toolName: string, args: Record<string, unknown>): ToolCallInfo;
  /**
   * Switches the model for the next request (journaled). Refused, with nothing changed, when the
   * model's provider has no API key in the environment or the options.
   */
  setModel(model: Model | string): Result<Model, CodingAgentError>;
  /**
   * The thinking level asked for (undefined: the model's default) and what the model gets for
   * it (`effort`: the effort sent, "on" for a switch without levels, "off", or "default"); `note`
   * says what is used instead when the model cannot take the level as asked; `levels` are those
   * it takes as asked, weakest first (what a picker offers).
   */
  thinking(): { level: ThinkingLevel | undefined; effort: string; note?: string; levels: ThinkingLevel[] };
  /**
   * Models this session can switch to (the catalog and config providers), each with whether its
   * provider's key is there (`ready`) and, when not, the variable to set.
   */
  models(): { ref: string; name: string; ready: boolean; keyEnv?: string; legacy?: boolean }[];
  /** Sets the thinking level from the next request on (journaled with the model); undefined: the model's default. */
  setThinking(
    level: ThinkingLevel | undefined,
  ): Result<
    { level: ThinkingLevel | undefined; effort: string; note?: string; levels: ThinkingLevel[] },
    CodingAgentError
  >;
  permissionMode(): PermissionModeName;
  /** Changes the mode from the next tool call on (this process; child agents follow). */
  setPermissionMode(mode: PermissionModeName): Result<PermissionModeName, CodingAgentError>;
  /** The permission rules in force, with the config file each came from. */
  permissionRules(): PermissionRuleInfo[];
  /** Adds (or, `remove`, takes out) a rule, in force at once and saved where `scope` says. */
  editPermissionRule(edit: {
    rule: string;
    behavior: PermissionBehavior;
    scope: PermissionRuleScope;
    remove?: boolean;
  }): Result<PermissionRuleInfo, CodingAgentError>;
  /**
   * Runs the agent to its natural end. Provider failures are a summary with that stop reason.
   * `@path` mentions of files attach their content (bounded), of folders their listing, of
   * images an image block.
   */
  prompt(input: string | PromptInput): Promise<Result<RunSummary, CodingAgentError>>;
  /**
   * Completions for an extension's mention being typed, `token` being what follows the `@`:
   * without a colon the prefixes that start with it (`ref` ""), with one the source's candidates
   * (an MCP server's resources for `@docs:`). Empty when no extension answers.
   */
  completeMention(token: string, signal?: AbortSignal): Promise<MentionCompletionInfo[]>;
  /**
   * Runs a shell command for the user (`!cmd`) without asking (it is the user's own, not the
   * model's; no rule applies) in the OS sandbox of the permission mode in force, and puts the
   * command with its output in the conversation, for the model to see with the next prompt.
   */
  runShell(command: string): Promise<Result<ShellRun, CodingAgentError>>;
  /** Delivered after the current tool batch, before the next model call; when idle, starts a run. */
  steer(text: string): void;
  /** Delivered when the agent would otherwise stop; when idle, starts a run. */
  followUp(text: string): void;
  abort(): void;
  subscribe(listener: (event: CodingAgentEvent) => void): () => void;
  /** The model context of the current head. */
  messages(): Message[];
  tree(): SessionTreeNode[];
  /**
   * Continues from `entryId` (the head moves; nothing is deleted). `restore`: "code" puts back
   * only the files Keel's tools changed (the head stays), "both" does both; default "conversation".
   */
  branch(
    entryId: string,
    options?: { restore?: RestoreChoice },
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>>;
  /** Moves the head back before the `count`-th most recent user prompt (default 1); `restore` as for branch. */
  rewind(
    count?: number,
    options?: { restore?: RestoreChoice },
  ): Promise<
    Result<{ entryId: string | null; prompt: string | undefined; files?: FilesRestored }, CodingAgentError>
  >;
  /** What a rewind of `count` prompts, or a move to `entryId`, would put back in the files. */
  fileChanges(target: { rewind: number } | { entryId: string }): Result<FileChanges, CodingAgentError>;
  /** A new session file starting with this one's path up to `entryId` (default head). */
  fork(entryId?: string): Promise<Result<{ sessionFile: string; sessionId: string }, CodingAgentError>>;
  compact(
    instructions?: string,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>>;
  /** The session's commands, live. */
  readonly commands: AgentCommands;
  extensionState(extensionId: string): unknown;
  diagnostics(): Diagnostic[];
  contextUsage(): ContextUsage;
  /** Total usage and cost of this process's runs, child agents included. */
  usage(): Usage;
  /** The same, apart: this session's own model calls, each child agent's, and external services'. */
  usageBreakdown(): {
    own: Usage;
    children: { agentId: string; title: string; usage: Usage }[];
    external: { source: string; requests?: number; credits?: number; costUsd?: number }[];
  };
  /** The session's child agents, as its journal knows them (also after a resume). */
  agents(): AgentRecord[];
  /**
   * Waits for the child agents still running (background ones: a run's foreground children end
   * with it) to end, at most `timeoutMs` and never past `signal`; those still running then are
   * stopped (journaled as aborted). Resolves with each child that was running, in the order they
   * ended, and whether it was stopped.
   */
  waitForAgents(options: {
    timeoutMs: number;
    signal?: AbortSignal;
  }): Promise<{ result: AgentRunResult; stopped: boolean }[]>;
  /** What trusting the project would let it do, read from its files (nothing is run or loaded). */
  trustPreview(): Promise<TrustPreview>;
  /**
   * Trusts the project as it is now (its config, extensions and hooks load from the next
   * agent created for it; this one keeps what it started with).
   */
  trust(): Promise<Result<{ projectRoot: string }, CodingAgentError>>;
  /** Ends the session: "switch" when another session takes over (extensions hear the reason). */
  close(options?: { reason?: "exit" | "switch" | "reload" }): Promise<void>;
}
