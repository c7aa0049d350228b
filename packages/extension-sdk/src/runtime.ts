// What an extension sees at run time: its typed config and state, the session and workspace,
// models, the UI, approvals, persisted notices, commands and catalogs it adds after activation,
// its own data directory and debug log.
import type {
  AssistantMessage,
  Message,
  Model,
  ServerToolName,
  ServerToolRequest,
  ThinkingLevel,
} from "@keel/protocol";
import type { AgentRecord } from "./agents.js";
import type { ApprovalDecision, ApprovalRequest } from "./approvals.js";
import type { ToolCatalog } from "./catalogs.js";
import type { ExtensionCommand } from "./commands.js";
import type { MentionRegistry } from "./mentions.js";
import type { RuntimeNet } from "./net.js";
import type { Exec, ProtectedSecret } from "./process.js";
import type { ExtensionUI } from "./ui.js";

/** Session state: persisted as app_state journal entries, so it follows branches, rewinds and forks. */
export interface StateHandle<T> {
  get(): T;
  /** Replaces the state (validated against the schema) and journals it. */
  set(next: T): void;
  update(fn: (current: T) => T): void;
}

export interface SessionInfo {
  id: string;
  cwd: string;
  /** False for ephemeral (unjournaled) sessions. */
  persistent: boolean;
  /** Set in a child agent's session: the parent session and the agent. */
  parent?: { sessionId: string; agentId: string };
}

export interface WorkspaceInfo {
  cwd: string;
  /** The project root trust applies to (the nearest folder with .git or .keel, or cwd). */
  projectRoot: string;
  /** Whether the project is trusted; nothing of an untrusted project may be read or run. */
  trusted: boolean;
  /** Keel's home (`~/.keel` or `$KEEL_HOME`). */
  keelHome: string;
  /**
   * Claude Code's user folder (`~/.claude`) when the user lets Keel read it (config
   * `claude.userFiles`, on by default); undefined: leave it alone (or a host that does not say).
   */
  claudeHome?: string;
  /**
   * What the user approved of this extension's `trustApprovals` when trusting the project (key →
   * value); empty when the project is not trusted or nothing was recorded. Honour a project item
   * that widens what runs unasked only when it equals its entry here.
   */
  approved: Readonly<Record<string, string>>;
}

export interface Diagnostic {
  extensionId: string;
  level: "info" | "warning" | "error";
  message: string;
}

export interface CompletionRequest {
  messages: Message[];
  systemPrompt?: string;
  /** `provider/id`; default the session's model. */
  model?: string;
  maxTokens?: number;
  /** Thinking for this call ("off" or an effort); default the model's own. */
  reasoning?: ThinkingLevel;
  /**
   * Server-side tools the provider may run within this one reply — its own web search or fetch
   * (`serverTools()` says which the model has; others are left out). Their results come back
   * as `serverTool` blocks, the text with its `citations`, and their fees in the usage.
   */
  serverTools?: ServerToolRequest[];
  signal?: AbortSignal;
}

export type CompletionOutcome =
  | { ok: true; message: AssistantMessage }
  | { ok: false; error: { type: string; message: string } };

export interface ModelsAccess {
  /** The model in use now. */
  current(): Model;
  /** Every model Keel knows: the catalog and custom providers from config. */
  list(): Model[];
  /** `provider/id` → the model, or undefined when nothing by that name is known. */
  resolve(ref: string): Model | undefined;
  /**
   * One model call through Keel's own provider layer (keys, retries, cost), with no tools of the
   * session's (the conversation's tool list and cached prefix are untouched); its usage counts
   * toward the session's and, during a run, the run's (an MCP server's sampling request, a
   * WebSearch through the provider's own search).
   */
  complete(request: CompletionRequest): Promise<CompletionOutcome>;
  /** The server-side tools `model` (`provider/id`, default the current one) has: what `complete` can offer it. */
  serverTools(model?: string): readonly ServerToolName[];
}

/** Usage of something other than the model (a search API's credits), added to the session's totals. */
export interface ExternalUsage {
  /** Who reported it: "tavily", "github". */
  source: string;
  requests?: number;
  credits?: number;
  costUsd?: number;
}

/** Commands and catalogs added after activation, under the same clash checks as declared ones. */
export type Registration = { ok: true } | { ok: false; message: string };

export interface CommandRegistry<Rt> {
  add(command: ExtensionCommand<Rt>): Registration;
  /** Removes a command this extension added or declared; false when it had none by that name. */
  remove(name: string): boolean;
}

export interface CatalogRegistry<Rt> {
  add(catalog: ToolCatalog<Rt>): Registration;
  remove(id: string): boolean;
}

export interface NoticeOptions {
  /**
   * Make sure the model reacts (an idle interactive session whose background agent finished):
   * when no run is going on, one starts from the notice; during a run the notice goes with its
   * next request, and if the run ends without one, the next run starts from it. Default false:
   * the notice waits for the next request, whenever that is.
   */
  wake?: boolean;
  /**
   * What the notice delivers, named by you ("agent:a1"). A notice whose key this branch already
   * holds, or that already waits for the next request, is dropped — so persisting it again after
   * a resume (when you cannot know whether the first one was journaled) delivers it exactly once.
   */
  key?: string;
}

export type ConfigUpdate<Config> = { ok: true; config: Config } | { ok: false; message: string };

export interface ExtensionRuntime<Config = unknown, State = unknown, Instance = unknown> {
  readonly id: string;
  /** The resolved configuration (reflects `updateConfig`). */
  readonly config: Config;
  readonly state: StateHandle<State>;
  /** What `lifecycle.activate` returned. */
  readonly instance: Instance;
  readonly ui: ExtensionUI;
  readonly session: SessionInfo;
  readonly workspace: WorkspaceInfo;
  /** Same as `workspace.cwd`. */
  readonly cwd: string;
  readonly models: ModelsAccess;
  /** The model in use now (same as `models.current()`). */
  model(): Model;
  /** This extension's own folder under the Keel home, created on first call. */
  dataDir(): string;
  /** A line for the debug log (`<keel home>/logs/debug.log`; shown live with `keel --debug`). */
  debug(message: string): void;
  /** Reports one diagnostic line to the user. */
  report(level: Diagnostic["level"], message: string): void;
  /** Queues a message for the model: steering while a run is going, otherwise a new run. */
  sendMessage(text: string, options?: { deliverAs?: "steer" | "followUp" | "prompt" }): void;
  /**
   * A message the model keeps: journaled and appended before the next request (never editing
   * what was already sent), folded like every other entry on resume and rewind.
   */
  persistNotice(text: string, options?: NoticeOptions): void;
  /**
   * Rewrites this extension's user configuration (`extensions.<id>.config` in the user's
   * config file, nothing else): validated against the schema, written atomically.
   */
  updateConfig(scope: "user", update: (current: Config) => Config): ConfigUpdate<Config>;
  /** Asks the user through the host's approval dialog (headless: `unsupported` at once). */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Adds to the session's usage (shown with the model's usage and cost). */
  recordUsage(usage: ExternalUsage): void;
  /**
   * Pre-approves permission rules (`Bash(git diff:*)`, `Read`) until the current run ends, as a
   * skill's `allowed-tools` does; deny rules and plan mode still win. Refused outside a run.
   */
  allowForRun(rules: string[], reason: string): Registration;
  readonly commands: CommandRegistry<ExtensionRuntime<Config, State, Instance>>;
  readonly catalogs: CatalogRegistry<ExtensionRuntime<Config, State, Instance>>;
  /** `@<prefix>:<ref>` mentions in the user's prompt this extension completes and attaches. */
  readonly mentions: MentionRegistry;
  /** The session's child agents, as its journal knows them (also after a resume). */
  agents(): AgentRecord[];
  /** Skill folders shipped by the loaded extensions (`skills` in their definitions), absolute. */
  extensionSkills(): { extensionId: string; path: string }[];
  /**
   * Runs a program for the model outside a tool call (a hook, a command), with the same sandbox,
   * environment and process-tree rules as `ToolCallContext.exec`; abort it with `options.signal`.
   */
  exec: Exec;
  /**
   * A credential this extension holds (a token and the variable it came from): the kernel keeps
   * the variable out of every command's environment and scrubs the value from every tool result.
   */
  protectSecret(secret: ProtectedSecret): void;
  /** The network as the kernel sends the model's requests: through the proxy the environment names. */
  readonly net: RuntimeNet;
}

/** What `activate` sees: everything of the runtime except the instance it is about to create. */
export type ActivationContext<Config, State> = Omit<ExtensionRuntime<Config, State, never>, "instance"> & {
  /** Aborted when activation takes too long or the session closes first. */
  signal: AbortSignal;
};
