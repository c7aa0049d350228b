// The CodingAgent: one session, one agent loop, one extension host. A façade over the kernel's
// parts in ./coding-agent/ — runs, navigation, settings, notice delivery, usage, compaction, trust and
// the lifecycle — which share one KernelState; each method here hands the call to its part.
import type { AgentTool } from "@keel/agent";
import type { Message, Model, ThinkingLevel, Usage } from "@keel/ai";
import type { AgentRecord, AgentRunResult, Diagnostic, ExternalUsage } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import type { Result } from "neverthrow";
import { builtinCommands } from "../commands/builtin/index.js";
import { CommandRegistry } from "../commands/registry.js";
import type { ExtensionHost, HostView } from "../host/extension-host.js";
import type { AgentSupervisor } from "./agents.js";
import { Compaction } from "./coding-agent/compaction.js";
import { KernelEvents } from "./coding-agent/events.js";
import { Lifecycle } from "./coding-agent/lifecycle.js";
import { attachHost, createLoop } from "./coding-agent/loop.js";
import { Navigation } from "./coding-agent/navigation.js";
import { NoticeDelivery } from "./coding-agent/notice-delivery.js";
import { RunDenials } from "./coding-agent/run-denials.js";
import { Runs } from "./coding-agent/runs.js";
import { KernelSettings } from "./coding-agent/settings.js";
import { ShellRuns } from "./coding-agent/shell-runs.js";
import { type KernelParts, KernelState } from "./coding-agent/state.js";
import { sessionTrustPreview, trustSessionProject } from "./coding-agent/trust.js";
import { KernelUsage } from "./coding-agent/usage.js";
import { PermissionControls } from "./controls.js";
import { NoticeQueue } from "./notices.js";
import type { ThinkingState } from "./thinking.js";
import { describeCall } from "./tool-calls.js";
import type { TrustPreview } from "./trust-preview.js";
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  ContextUsage,
  FileChanges,
  FilesRestored,
  HistoryItem,
  MentionCompletionInfo,
  PermissionModeName,
  PermissionRuleEdit,
  PermissionRuleInfo,
  PromptInput,
  RestoreChoice,
  RunSummary,
  SessionTreeNode,
  ShellRun,
  ToolCallInfo,
} from "./types.js";
import type { UsageBreakdown } from "./usage-ledger.js";

export type { KernelParts } from "./coding-agent/state.js";
export type { UsageBreakdown } from "./usage-ledger.js";

export class KernelAgent implements CodingAgent {
  private readonly state: KernelState;
  private readonly events: KernelEvents;
  private readonly denials: RunDenials;
  private readonly spent: KernelUsage;
  private readonly settings: KernelSettings;
  private readonly controls: PermissionControls;
  private readonly delivery: NoticeDelivery;
  private readonly compaction: Compaction;
  private readonly runs: Runs;
  private readonly shells: ShellRuns;
  private readonly navigation: Navigation;
  private readonly lifecycle: Lifecycle;
  private supervisor: AgentSupervisor | undefined;
  private readonly touchListeners: ((paths: string[]) => void)[] = [];
  readonly notices: NoticeQueue;
  readonly commands: CommandRegistry;

  constructor(parts: KernelParts) {
    const state = new KernelState(parts);
    this.state = state;
    const emit = (event: CodingAgentEvent) => this.emit(event);
    const report = (level: Diagnostic["level"], message: string) => this.report(level, message);
    this.denials = new RunDenials(emit, () => state.agent.isRunning);
    this.events = new KernelEvents(parts.diagnostics, (event) => this.denials.observe(event));
    this.spent = new KernelUsage(state);
    // Built-in commands hold their names before anything else registers (the front end's, then extensions').
    this.commands = new CommandRegistry((owner, message) => this.report("warning", message, owner));
    for (const spec of builtinCommands(this)) this.commands.add(spec, "builtin");
    this.notices = new NoticeQueue(
      () => state.session,
      (message) => this.report("error", message),
    );
    state.notices = this.notices;
    this.settings = new KernelSettings(state, report);
    this.controls = new PermissionControls(parts.permission, {
      keelHome: parts.home,
      projectRoot: parts.projectRoot,
    });
    this.delivery = new NoticeDelivery(state, () => void this.runs.run(null));
    this.compaction = new Compaction(state, {
      emit,
      addOwnUsage: (usage) => this.spent.addOwn(usage),
      deliverNotices: () => this.delivery.deliver(),
    });
    this.runs = new Runs(state, {
      emit,
      report,
      denials: this.denials,
      usage: this.spent,
      modelForRun: (ref) => this.settings.modelForRun(ref),
      compactWith: (reason) => this.compaction.compactWith(reason),
      deliverIfIdle: () => this.delivery.deliverIfIdle(),
    });
    this.shells = new ShellRuns(state, emit);
    this.navigation = new Navigation(state);
    this.lifecycle = new Lifecycle(state, { emit, report, abort: () => this.abort() });
    state.agent = createLoop(state, {
      emit,
      report,
      denials: this.denials,
      stop: this.runs,
      compact: async (reason, signal) =>
        (await this.compaction.compactWith(reason, undefined, signal)).isOk(),
      describeCall: (toolName, args) => this.describeToolCall(toolName, args),
      touched: (paths) => {
        for (const listener of this.touchListeners) listener(paths);
      },
    });
  }

  // Construction and the parent's view (create.ts, agents.ts, services.ts).

  /** Second construction step (see loop.ts): the host's tools and the system prompt. */
  attachHost(host: HostView, systemPrompt: string, owned?: ExtensionHost, tools?: AgentTool[]): void {
    attachHost(this.state, host, systemPrompt, owned, tools);
  }

  /** Hears the files each finished tool call named in its declared path arguments. */
  onTouched(listener: (paths: string[]) => void): void {
    this.touchListeners.push(listener);
  }

  /** Tells model and user about work a crash interrupted, then journals results for orphan calls. */
  recover(): Promise<void> {
    return this.lifecycle.recover();
  }

  get session(): Session {
    return this.state.session;
  }
  /** The session's extension host (undefined on a child agent's kernel). */
  get host(): ExtensionHost | undefined {
    return this.state.ownHost;
  }
  get agentInfo(): { agentId: string; title: string } | undefined {
    return this.state.parts.agent;
  }

  /** The tools and system prompt every request carries (a child sharing the prefix takes them). */
  requestPrefix(): { systemPrompt: string; tools: readonly AgentTool[] } {
    const config = this.state.agent.config;
    return { systemPrompt: config.systemPrompt ?? "", tools: config.tools ?? [] };
  }

  emit(event: CodingAgentEvent): void {
    this.events.emit(event);
  }

  report(level: Diagnostic["level"], message: string, extensionId = "kernel"): void {
    this.events.report(level, message, extensionId);
  }

  /** An extension's notice for the model (see notice-delivery.ts). */
  persistNotice(source: string, text: string, options: { wake?: boolean; key?: string } = {}): void {
    this.delivery.persist(source, text, options);
  }

  /** A child agent's usage, counted in this session's totals. */
  addChildUsage(child: { agentId: string; title: string }, usage: Usage): void {
    this.spent.addChild(child, usage);
  }

  recordExternalUsage(usage: ExternalUsage): void {
    this.spent.addExternal(usage);
  }

  /** Own model usage that did not come from the loop (an extension's one-off completion). */
  addOwnUsage(usage: Usage): void {
    this.spent.addOwn(usage);
  }

  /** Runs before the session closes (child agents are stopped and journaled). */
  onClose(hook: () => Promise<void>): void {
    this.lifecycle.onClose(hook);
  }

  /** Child agents of this session: the supervisor runs them and is stopped when it closes. */
  attachAgents(supervisor: AgentSupervisor): void {
    this.supervisor = supervisor;
    this.onClose(() => supervisor.stopAll());
  }

  /** A command file's `` !`cmd` `` line (see shell-runs.ts). */
  runCommandShell(
    command: string,
    allow: readonly string[],
    signal: AbortSignal,
  ): Promise<Result<string, CodingAgentError>> {
    return this.shells.runCommandShell(command, allow, signal);
  }

  // The session.

  get sessionId(): string {
    return this.state.session.id;
  }
  get sessionFile(): string | undefined {
    return this.state.parts.temporaryDir ? undefined : this.state.session.path;
  }
  get cwd(): string {
    return this.state.parts.cwd;
  }
  get projectRoot(): string {
    return this.state.parts.projectRoot;
  }
  get isRunning(): boolean {
    return this.state.agent.isRunning;
  }
  trustPreview(): Promise<TrustPreview> {
    return sessionTrustPreview(this.state);
  }
  trust(): Promise<Result<{ projectRoot: string }, CodingAgentError>> {
    return trustSessionProject(this.state);
  }
  toolNames(): string[] {
    return this.state.agent.config.tools?.map((t) => t.name) ?? [];
  }
  describeToolCall(toolName: string, args: Record<string, unknown>): ToolCallInfo {
    return describeCall(this.state.agent.config.tools ?? [], this.state.host?.catalogs, toolName, args);
  }
  extensionState(extensionId: string): unknown {
    return this.state.session.fold().extensionStates[extensionId];
  }
  diagnostics(): Diagnostic[] {
    return this.events.diagnostics();
  }
  subscribe(listener: (event: CodingAgentEvent) => void): () => void {
    return this.events.subscribe(listener);
  }
  async completeMention(token: string, signal?: AbortSignal): Promise<MentionCompletionInfo[]> {
    const host = this.state.ownHost;
    if (!host || host.mentions.isEmpty || this.state.closed) return [];
    return host.mentions.complete(token, signal);
  }

  // Settings (settings.ts; the permission mode and rules, ../controls.ts).

  model(): Model {
    return this.settings.model();
  }
  setModel(ref: Model | string): Result<Model, CodingAgentError> {
    return this.settings.setModel(ref);
  }
  models(): { ref: string; name: string; ready: boolean; keyEnv?: string; legacy?: boolean }[] {
    return this.settings.models();
  }
  thinking(): ThinkingState {
    return this.settings.thinking();
  }
  setThinking(level: ThinkingLevel | undefined): Result<ThinkingState, CodingAgentError> {
    return this.settings.setThinking(level);
  }
  permissionMode(): PermissionModeName {
    return this.controls.mode();
  }
  setPermissionMode(mode: PermissionModeName): Result<PermissionModeName, CodingAgentError> {
    return this.controls.setMode(mode);
  }
  permissionRules(): PermissionRuleInfo[] {
    return this.controls.rules();
  }
  editPermissionRule(edit: PermissionRuleEdit): Result<PermissionRuleInfo, CodingAgentError> {
    return this.controls.edit(edit);
  }

  // Runs (runs.ts, shell-runs.ts).

  prompt(input: string | PromptInput): Promise<Result<RunSummary, CodingAgentError>> {
    return this.runs.prompt(input);
  }
  runShell(command: string): Promise<Result<ShellRun, CodingAgentError>> {
    return this.shells.runShell(command);
  }
  steer(text: string): void {
    this.runs.steer(text);
  }
  followUp(text: string): void {
    this.runs.followUp(text);
  }
  abort(): void {
    this.runs.abort();
    this.state.maintenance?.abort();
    this.shells.abort();
  }

  // Navigation (navigation.ts).

  messages(): Message[] {
    return this.navigation.messages();
  }
  history(): HistoryItem[] {
    return this.navigation.history();
  }
  tree(): SessionTreeNode[] {
    return this.navigation.tree();
  }
  branch(
    entryId: string,
    options?: { restore?: RestoreChoice },
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
    return this.navigation.branch(entryId, options);
  }
  rewind(
    count?: number,
    options?: { restore?: RestoreChoice },
  ): Promise<
    Result<{ entryId: string | null; prompt: string | undefined; files?: FilesRestored }, CodingAgentError>
  > {
    return this.navigation.rewind(count, options);
  }
  fileChanges(target: { rewind: number } | { entryId: string }): Result<FileChanges, CodingAgentError> {
    return this.navigation.fileChanges(target);
  }
  fork(entryId?: string): Promise<Result<{ sessionFile: string; sessionId: string }, CodingAgentError>> {
    return this.navigation.fork(entryId);
  }

  // Compaction (compaction.ts) and usage (usage.ts).

  compact(
    instructions?: string,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>> {
    return this.compaction.compact(instructions);
  }
  contextUsage(): ContextUsage {
    return this.spent.context();
  }
  /** This session's usage: its own model calls and its child agents'. */
  usage(): Usage {
    return this.spent.total();
  }
  usageBreakdown(): UsageBreakdown {
    return this.spent.breakdown();
  }

  // Child agents (the supervisor, agents.ts).

  agents(): AgentRecord[] {
    return this.supervisor?.records() ?? [];
  }
  waitForAgents(options: {
    timeoutMs: number;
    signal?: AbortSignal;
  }): Promise<{ result: AgentRunResult; stopped: boolean }[]> {
    return this.supervisor?.settle(options.timeoutMs, options.signal) ?? Promise.resolve([]);
  }

  /** Idempotent; a second caller waits for the same close (an exit must not outrun the unlock). */
  close(options: { reason?: "exit" | "switch" | "reload" } = {}): Promise<void> {
    return this.lifecycle.close(options.reason ?? "exit");
  }
}
