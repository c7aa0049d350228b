// The CodingAgent handle: everything a front end does with a session goes through it.
import type { Message, Model, ThinkingLevel, Usage } from "@keel/ai";
import type { AgentRecord, AgentRunResult, Diagnostic } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { TrustPreview } from "../trust-preview.js";
import type { AgentCommands } from "./commands.js";
import type { CodingAgentError } from "./errors.js";
import type { CodingAgentEvent, ToolCallInfo } from "./events.js";
import type { PromptInput, RunSummary, ShellRun } from "./runs.js";
import type {
  ContextUsage,
  FileChanges,
  FilesRestored,
  HistoryItem,
  MentionCompletionInfo,
  PermissionModeName,
  PermissionRuleEdit,
  PermissionRuleInfo,
  RestoreChoice,
  SessionTreeNode,
} from "./session.js";

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
  editPermissionRule(edit: PermissionRuleEdit): Result<PermissionRuleInfo, CodingAgentError>;
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
  /**
   * The same messages with what each one is, for a front end replaying a resumed session: the
   * conversation, a summary (compaction, a branch left), or a notice left for the model.
   */
  history(): HistoryItem[];
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
