// The CodingAgent: one session, one agent loop, one extension host. It turns loop events into
// journal entries and UI events, runs hooks around runs, and keeps the agent's history equal to
// the fold of the journal.
import { rmSync } from "node:fs";
import { Agent, type AgentTool, type RunResult } from "@keel/agent";
import {
  addUsage,
  emptyUsage,
  type Message,
  type Model,
  modelRef,
  type StreamOptions,
  type ThinkingLevel,
  type Usage,
  type UserMessage,
} from "@keel/ai";
import type { AgentRecord, AgentRunResult, Diagnostic, ExternalUsage, Mention } from "@keel/extension-sdk";
import { recoveryMessage, recoveryToolResults, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { builtinCommands } from "../commands/builtin/index.js";
import { CommandRegistry } from "../commands/registry.js";
import type { CompactionSettings } from "../compaction/policy.js";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionHost, HostView } from "../host/extension-host.js";
import { checkRule } from "../permissions/rules.js";
import type { CommandSandbox } from "../sandbox/runtime.js";
import { type DeclaredTool, declarationOf } from "../tools/declarations.js";
import type { BuiltinTool } from "../tools/shared.js";
import { approvalChanges, trustedApprovals, trustProject } from "../trust/store.js";
import { changeLines } from "../trust/surface.js";
import { createAgentEventBridge } from "./agent-events.js";
import type { AgentSupervisor } from "./agents.js";
import { type CompactionOutcome, planCompaction, runCompaction } from "./compactor.js";
import { contextTokens, textTokens } from "./context-size.js";
import { hasKey, modelChoices, PermissionControls } from "./controls.js";
import { type DenialInput, toDenial } from "./denials.js";
import type { FileHistory } from "./file-history.js";
import { historyOf } from "./history.js";
import { JournalGuard, readOnlyRefusal } from "./journal-guard.js";
import { expandPrompt, promptParts } from "./mentions.js";
import { NoticeQueue } from "./notices.js";
import type { KernelPermission } from "./permission.js";
import { fileChanges, moveTo, rewindTarget } from "./rewind.js";
import {
  type BegunOperations,
  createAfterToolCall,
  createBeforeToolCall,
  createPrepareRequest,
  createSettleUnstarted,
  type ToolPermission,
} from "./seams.js";
import { remapNote, requestedThinking, type ThinkingState, thinkingState } from "./thinking.js";
import { describeCall } from "./tool-calls.js";
import { sessionTree } from "./tree.js";
import { previewTrust, type TrustPreview } from "./trust-preview.js";
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  CompactionReason,
  ContextUsage,
  FileChanges,
  FilesRestored,
  HistoryItem,
  MentionCompletionInfo,
  PermissionDenial,
  PermissionModeName,
  PermissionRuleInfo,
  PermissionRuleScope,
  PromptInput,
  RestoreChoice,
  RunSummary,
  SessionTreeNode,
  ShellRun,
  ToolCallInfo,
} from "./types.js";
import { type UsageBreakdown, UsageLedger } from "./usage-ledger.js";
import { runShellCall, runUserShell } from "./user-shell.js";

/** How long close() waits for an aborted run to journal its end. */
const RUN_END_WAIT_MS = 150;

export interface KernelParts {
  cwd: string;
  projectRoot: string;
  /** The Keel home (trust store, config). */
  home: string;
  session: Session;
  temporaryDir?: string;
  model: Model;
  resolveModel: (ref: Model | string) => Result<{ model: Model; warning?: string }, CodingAgentError>;
  systemPrompt: string;
  builtinTools: BuiltinTool[];
  streamOptions: StreamOptions;
  maxTurns?: number;
  compaction: CompactionSettings;
  permission: KernelPermission;
  diagnostics: Diagnostic[];
  /** Set for a child agent's kernel: it names the agent in events and approvals. */
  agent?: { agentId: string; title: string };
  /** Keeps what Keel's file tools change, for code rewind (absent: nothing is kept). */
  files?: FileHistory;
  /** The thinking level asked for; undefined: the model's default. */
  thinking?: ThinkingLevel;
  /** Every model the session could switch to. */
  listModels?: () => Model[];
  /** Routes prompt caching by this key instead of the session's id (a child sharing its parent's prefix). */
  cacheKey?: string;
  /** The OS sandbox commands run in; its scrubber keeps known secrets out of every tool result. */
  sandbox?: CommandSandbox;
  /** The session's kernel closes the sandbox; a child agent's shares its parent's. */
  ownsSandbox?: boolean;
}

export type { UsageBreakdown } from "./usage-ledger.js";

function textOf(message: Message | undefined): string {
  if (!message || message.role === "user") return "";
  return message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
}

function userText(message: Message): string {
  return message.role === "user" ? promptParts(message.content).text : "";
}

const STOPPED_BATCH = "Not run: the user denied an earlier call of this batch and stopped the run.";

export class KernelAgent implements CodingAgent {
  private session_: Session;
  private host_!: HostView;
  private ownHost: ExtensionHost | undefined;
  private readonly agent: Agent;
  readonly notices: NoticeQueue;
  private readonly begun: BegunOperations = new Map();
  private runDenials: PermissionDenial[] = [];
  private closeHooks: (() => Promise<void>)[] = [];
  private supervisor: AgentSupervisor | undefined;
  private model_: Model;
  private readonly listeners = new Set<(event: CodingAgentEvent) => void>();
  private readonly diagnostics_: Diagnostic[];
  private readonly ledger: UsageLedger;
  /**
   * Runs from their start until their result is returned (runEnd hooks and the overflow retry
   * included): one at a time, and close() lets them journal their end.
   */
  private readonly runs = new Set<Promise<unknown>>();
  /** Steering and follow-ups that came after the loop of the current run had ended. */
  private readonly lateMessages: string[] = [];
  /** Characters of system prompt + tool schemas, counted in every request (tokens per the model). */
  private fixedChars = 0;
  private maintenance: AbortController | undefined;
  /** The current run's abort, from its first await on: abort() before the loop starts must count. */
  private runAbort: AbortController | undefined;
  private closed = false;
  private listenerFailed = false;
  private readonly journal = new JournalGuard(() => this.session_);
  private closing: Promise<void> | undefined;
  private thinking_: ThinkingLevel | undefined;
  private readonly controls: PermissionControls;
  /** A denial asked to stop: the run ends after the current tool batch. */
  private stopRequested = false;
  private stoppedByDenial = false;
  /** The user's `!cmd` while it runs (abort() stops it too). */
  private shell: AbortController | undefined;
  /** One-off completions extensions made during the current run (counted in its usage). */
  private runExtraUsage: Usage | undefined;
  readonly commands: CommandRegistry;

  constructor(private readonly parts: KernelParts) {
    this.session_ = parts.session;
    this.model_ = parts.model;
    this.thinking_ = parts.thinking;
    this.controls = new PermissionControls(parts.permission, {
      keelHome: parts.home,
      projectRoot: parts.projectRoot,
    });
    // Totals of earlier processes on this session: the journal keeps every reply's usage.
    this.ledger = new UsageLedger({
      own: parts.session.listingInfo().usage,
      children: Object.values(parts.session.fold().agents).flatMap((child) =>
        child.outcome ? [{ agentId: child.agentId, title: child.title, usage: child.outcome.usage }] : [],
      ),
    });
    this.diagnostics_ = [...parts.diagnostics];
    // Built-in commands hold their names before anything else registers (the front end's, then extensions').
    this.commands = new CommandRegistry((owner, message) => this.report("warning", message, owner));
    for (const spec of builtinCommands(this)) this.commands.add(spec, "builtin");
    this.notices = new NoticeQueue(
      () => this.session_,
      (message) => this.report("error", message),
    );
    const seams = {
      session: () => this.session_,
      host: () => this.host_,
      model: () => this.model_,
      settings: parts.compaction,
      fixedTokens: () => this.fixed,
      permission: this.reportingDenials(parts.permission.check),
      denied: (denial: DenialInput) => this.denied(denial),
      ...(parts.agent ? { agent: parts.agent } : {}),
      compact: async (reason: "threshold", signal: AbortSignal) =>
        (await this.compactWith(reason, undefined, signal)).isOk(),
      syncHistory: (messages: Message[]) => this.agent.replaceMessages(messages),
      flushNotices: async () => {
        await this.notices.flush();
      },
      onNotice: (text: string) => this.emit({ type: "capability_notice", text }),
      report: (message: string) => this.report("warning", message),
      ...(parts.files ? { files: parts.files } : {}),
      requestStop: () => {
        this.stopRequested = true;
      },
      stopping: () => (this.stopRequested ? STOPPED_BATCH : undefined),
      ...(parts.sandbox ? { scrub: <T>(value: T) => parts.sandbox!.scrubber().scrub(value) } : {}),
      touched: (paths: string[]) => {
        for (const listener of this.touchListeners) listener(paths);
      },
    };
    this.agent = new Agent({
      model: parts.model,
      systemPrompt: parts.systemPrompt,
      tools: parts.builtinTools,
      streamOptions: this.requestOptions(parts.session.id),
      ...(parts.maxTurns !== undefined ? { maxTurns: parts.maxTurns } : {}),
      messages: parts.session.context(),
      prepareRequest: this.journal.prepareRequest(createPrepareRequest(seams)),
      beforeToolCall: this.journal.beforeToolCall(createBeforeToolCall(seams, this.begun)),
      afterToolCall: createAfterToolCall(seams, this.begun),
      onListenerError: (error) => this.report("warning", `event listener failed: ${String(error)}`),
    });
    const settleUnstarted = createSettleUnstarted(seams, this.begun);
    this.agent.subscribe((event) => {
      if (event.type === "tool_execution_end") void settleUnstarted(event.toolCallId, event.result);
    });
    this.agent.subscribe(
      createAgentEventBridge({
        session: () => this.session_,
        host: () => this.host_,
        emit: (event) => this.emit(event),
        report: (level, message) => this.report(level, message),
        describeCall: (toolName, args) => this.describeToolCall(toolName, args),
        ...(parts.sandbox ? { scrub: <T>(value: T) => parts.sandbox!.scrubber().scrub(value) } : {}),
      }),
    );
    // A denial that asked to stop ends the run once its tool batch is done (results journaled).
    this.agent.subscribe((event) => {
      if (event.type !== "turn_end" || !this.stopRequested) return;
      this.stoppedByDenial = true;
      this.agent.abort();
    });
  }

  /**
   * What every model request carries: the session for caching (a child sharing its parent's
   * prefix routes by the parent's), the thinking level for the model.
   */
  private requestOptions(sessionId: string): StreamOptions {
    const reasoning = requestedThinking(this.model_, this.thinking_ ?? this.parts.streamOptions.reasoning);
    const { reasoning: _given, ...rest } = this.parts.streamOptions;
    return {
      ...rest,
      sessionId: this.parts.cacheKey ?? sessionId,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
  }

  private journalModel(): void {
    const level = this.thinking_;
    void this.session_
      .appendEntry({
        type: "model_change",
        provider: this.model_.provider,
        modelId: this.model_.id,
        ...(level !== undefined ? { thinking: level } : {}),
      })
      .then((r) => {
        if (r.isErr()) this.report("error", `Could not journal the model change: ${r.error.message}`);
      });
  }

  /**
   * Second construction step: the host needs the kernel's services, the kernel needs the host's
   * tools. A session's kernel owns its ExtensionHost; a child agent's gets a view of its parent's.
   */
  private readonly touchListeners: ((paths: string[]) => void)[] = [];

  /** Hears the files each finished tool call named in its declared path arguments. */
  onTouched(listener: (paths: string[]) => void): void {
    this.touchListeners.push(listener);
  }

  attachHost(host: HostView, systemPrompt: string, owned?: ExtensionHost, tools?: AgentTool[]): void {
    this.host_ = host;
    this.ownHost = owned;
    if (!tools) tools = [...this.parts.builtinTools, ...host.tools()];
    this.agent.configure({ tools, systemPrompt });
    this.fixedChars =
      systemPrompt.length + JSON.stringify(tools.map((t) => [t.name, t.description, t.parameters])).length;
  }

  /** Tells model and user about work a crash interrupted, then journals results for orphan calls. */
  async recover(): Promise<void> {
    const actions = this.session_.fold().recovery;
    // A read-only session is only looked at: it cannot take the results that close the calls.
    if (actions.length === 0 || this.session_.readOnly) return;
    // The reply cut off mid-stream is journaled too: the user saw it, and the next entry
    // would otherwise supersede its checkpoint.
    const restored = actions.flatMap((a) =>
      a.kind === "interrupted_message" && a.message.content.length > 0 ? [a.message] : [],
    );
    for (const result of [...recoveryToolResults(actions, Date.now()), ...restored]) {
      const appended = await this.session_.appendMessage(result);
      if (appended.isErr()) this.report("error", `Could not journal recovery: ${appended.error.message}`);
    }
    this.agent.replaceMessages(this.session_.context());
    this.emit({ type: "recovery", text: recoveryMessage(actions) });
  }

  get sessionId(): string {
    return this.session_.id;
  }
  get sessionFile(): string | undefined {
    return this.parts.temporaryDir ? undefined : this.session_.path;
  }
  get cwd(): string {
    return this.parts.cwd;
  }
  get projectRoot(): string {
    return this.parts.projectRoot;
  }

  /**
   * What trusting the project would let it do, read (never run), with what each extension adds,
   * and for a project trusted before, what changed since (its own surface and what extensions
   * would honour).
   */
  async trustPreview(): Promise<TrustPreview> {
    const project = { cwd: this.parts.cwd, projectRoot: this.parts.projectRoot };
    const preview = previewTrust({ ...project, home: this.parts.home });
    const fromExtensions = (await this.ownHost?.trustPreviews(project)) ?? [];
    const approvals = (await this.ownHost?.trustApprovals(project)) ?? {};
    const extensionChanges =
      preview.status === "untrusted" || preview.status === "unknown"
        ? []
        : approvalChanges(trustedApprovals(this.parts.projectRoot, this.parts.home), approvals);
    const changes = [...(preview.changes ?? []), ...changeLines(extensionChanges)];
    return {
      ...preview,
      ...(fromExtensions.length > 0 ? { fromExtensions } : {}),
      ...(changes.length > 0 ? { changes } : {}),
    };
  }

  /** Trusts the folder with what it can run now, and what each extension would honour from it. */
  async trust(): Promise<Result<{ projectRoot: string }, CodingAgentError>> {
    const project = { cwd: this.parts.cwd, projectRoot: this.parts.projectRoot };
    const approvals = (await this.ownHost?.trustApprovals(project)) ?? {};
    const trusted = trustProject(this.parts.projectRoot, { home: this.parts.home, approvals });
    if (trusted.isErr()) return err({ type: "config", message: trusted.error.message });
    return ok({ projectRoot: this.parts.projectRoot });
  }
  get isRunning(): boolean {
    return this.agent.isRunning;
  }
  get session(): Session {
    return this.session_;
  }
  /** The session's extension host (undefined on a child agent's kernel). */
  get host(): ExtensionHost | undefined {
    return this.ownHost;
  }
  get agentInfo(): { agentId: string; title: string } | undefined {
    return this.parts.agent;
  }
  toolNames(): string[] {
    return this.agent.config.tools?.map((t) => t.name) ?? [];
  }

  /** The tools and system prompt every request carries (a child sharing the prefix takes them). */
  requestPrefix(): { systemPrompt: string; tools: readonly AgentTool[] } {
    return { systemPrompt: this.agent.config.systemPrompt ?? "", tools: this.agent.config.tools ?? [] };
  }

  describeToolCall(toolName: string, args: Record<string, unknown>): ToolCallInfo {
    return describeCall(this.agent.config.tools ?? [], this.host_?.catalogs, toolName, args);
  }

  model(): Model {
    return this.model_;
  }

  /** Tokens of system prompt + tool schemas at the current model's tokenizer ratio. */
  private get fixed(): number {
    return textTokens(this.fixedChars, this.model_);
  }

  setModel(ref: Model | string): Result<Model, CodingAgentError> {
    const chosen = this.parts.resolveModel(ref);
    if (chosen.isErr()) return err(chosen.error);
    const model = chosen.value.model;
    if (!hasKey(model, this.parts.streamOptions))
      return err({
        type: "model",
        message: `${modelRef(model)} needs an API key: set ${model.apiKeyEnv} and start keel again. Still on ${modelRef(this.model_)}.`,
      });
    if (chosen.value.warning) this.report("warning", chosen.value.warning);
    this.model_ = model;
    this.agent.configure({ model, streamOptions: this.requestOptions(this.session_.id) });
    this.journalModel();
    // The level chosen for the last model may not be one this one takes: say what it gets instead.
    const remapped = remapNote(this.thinking());
    if (remapped) this.report("info", remapped);
    return ok(model);
  }

  models(): { ref: string; name: string; ready: boolean; keyEnv?: string; legacy?: boolean }[] {
    return modelChoices(this.parts.listModels?.() ?? [], this.parts.streamOptions);
  }

  thinking(): ThinkingState {
    return thinkingState(this.model_, this.thinking_);
  }

  setThinking(level: ThinkingLevel | undefined): Result<ThinkingState, CodingAgentError> {
    this.thinking_ = level;
    this.agent.configure({ streamOptions: this.requestOptions(this.session_.id) });
    this.journalModel();
    return ok(this.thinking());
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

  editPermissionRule(edit: {
    rule: string;
    behavior: PermissionRuleInfo["behavior"];
    scope: PermissionRuleScope;
    remove?: boolean;
  }): Result<PermissionRuleInfo, CodingAgentError> {
    return this.controls.edit(edit);
  }

  /** The gate's blocks become permission_denied events (the check is shared with child agents). */
  private reportingDenials(check: ToolPermission): ToolPermission {
    return async (call) => {
      const outcome = await check(call);
      if (outcome.action === "block") {
        const { toolCallId, toolName, args, declaration } = call;
        this.denied({
          toolCallId,
          toolName,
          args,
          reason: outcome.reason,
          by: outcome.by ?? "rule",
          ...(declaration ? { declaration } : {}),
        });
      }
      return outcome;
    };
  }

  private denied(input: DenialInput): void {
    const denial = toDenial(input);
    this.runDenials.push(denial);
    this.emit({ type: "permission_denied", ...denial });
  }

  emit(event: CodingAgentEvent): void {
    // A child agent's denial during this run belongs to the run's summary too.
    if (event.type === "agent_event" && event.event.type === "permission_denied" && this.agent.isRunning) {
      const { type: _, ...denial } = event.event;
      this.runDenials.push({ ...denial, agentId: event.agentId });
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A UI listener failing must not stop the run, nor pass unnoticed. Not a diagnostic:
        // that is an event too, and would go back to the listener that just threw. Once per
        // agent, as a listener that throws on one event usually throws on all.
        if (this.listenerFailed) continue;
        this.listenerFailed = true;
        process.emitWarning(
          `@keel/coding-agent: an event listener threw on ${event.type} (later throws are not reported): ${errnoMessage(error)}`,
        );
      }
    }
  }

  report(level: Diagnostic["level"], message: string, extensionId = "kernel"): void {
    const diagnostic = { extensionId, level, message };
    this.diagnostics_.push(diagnostic);
    this.emit({ type: "diagnostic", diagnostic });
  }

  subscribe(listener: (event: CodingAgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async prompt(input: string | PromptInput): Promise<Result<RunSummary, CodingAgentError>> {
    return this.run(typeof input === "string" ? { text: input } : input);
  }

  async runShell(command: string): Promise<Result<ShellRun, CodingAgentError>> {
    if (this.closed) return err({ type: "closed", message: "This agent is closed." });
    if (this.agent.isRunning || this.inRun || this.shell)
      return err({
        type: "busy",
        message: "Wait for the run to end (or press Esc) before running a command.",
      });
    const readOnly = readOnlyRefusal(this.session_);
    if (readOnly) return err(readOnly);
    this.shell = new AbortController();
    try {
      const ran = await runUserShell(
        {
          bash: this.parts.builtinTools.find((t) => t.access === "exec" && t.args?.commands !== undefined),
          session: this.session_,
          emit: (event) => this.emit(event),
          signal: this.shell.signal,
          ...(this.parts.sandbox
            ? { scrub: (text: string) => this.parts.sandbox!.scrubber().text(text) }
            : {}),
        },
        command,
      );
      if (ran.isOk()) this.agent.replaceMessages(this.session_.context());
      return ran;
    } finally {
      this.shell = undefined;
    }
  }

  /**
   * A command file's `` !`cmd` `` line: judged, sandboxed and shown like the user's `!cmd`, its
   * output returned for the prompt instead of journaled; `allow` (the file's allowed-tools) holds
   * for this call only.
   */
  async runCommandShell(
    command: string,
    allow: readonly string[],
    signal: AbortSignal,
  ): Promise<Result<string, CodingAgentError>> {
    if (this.closed) return err({ type: "closed", message: "This agent is closed." });
    if (this.agent.isRunning || this.inRun || this.shell)
      return err({
        type: "busy",
        message: "Wait for the run to end (or press Esc) before running a command.",
      });
    const shell = new AbortController();
    this.shell = shell;
    const stop = () => shell.abort();
    signal.addEventListener("abort", stop, { once: true });
    // No run is going on (checked above), so the grant ends with this call and nothing else's.
    if (allow.length > 0) this.parts.permission.allowForRun(allow);
    try {
      const ran = await runShellCall(
        {
          bash: this.parts.builtinTools.find((t) => t.access === "exec" && t.args?.commands !== undefined),
          permission: this.parts.permission.check,
          emit: (event) => this.emit(event),
          signal: shell.signal,
          ...(this.parts.sandbox
            ? { scrub: (text: string) => this.parts.sandbox!.scrubber().text(text) }
            : {}),
        },
        command,
      );
      return ran.map((r) => r.output);
    } finally {
      if (allow.length > 0) this.parts.permission.endRun();
      signal.removeEventListener("abort", stop);
      this.shell = undefined;
    }
  }

  /**
   * The model one prompt asked for (a command file's `model`), put in place for its run; returns
   * what puts the session's back. Not journaled: the session stays on its model.
   */
  private modelForRun(ref: string | undefined): () => void {
    if (ref === undefined) return () => {};
    const chosen = this.parts.resolveModel(ref);
    const model = chosen.isOk() ? chosen.value.model : undefined;
    if (!model || !hasKey(model, this.parts.streamOptions)) {
      const why = chosen.isErr() ? chosen.error.message : `${modelRef(model!)} has no API key`;
      this.report(
        "warning",
        `This prompt asked for the model "${ref}", which Keel cannot use (${why}); it runs on ${modelRef(this.model_)}.`,
      );
      return () => {};
    }
    const session = this.model_;
    if (model === session) return () => {};
    this.model_ = model;
    this.agent.configure({ model, streamOptions: this.requestOptions(this.session_.id) });
    return () => {
      this.model_ = session;
      this.agent.configure({ model: session, streamOptions: this.requestOptions(this.session_.id) });
    };
  }

  /**
   * A run from `text`, or (null) from the history as it is — how a run starts that a notice woke
   * (a background agent finished while the session was idle).
   */
  private async run(input: PromptInput | null): Promise<Result<RunSummary, CodingAgentError>> {
    if (this.closed) return err({ type: "closed", message: "This agent is closed." });
    if (this.agent.isRunning || this.inRun)
      return err({ type: "busy", message: "A run is in progress: steer() or followUp() it, or abort() it." });
    const readOnly = readOnlyRefusal(this.session_);
    if (readOnly) return err(readOnly);
    const running = this.runOnce(input);
    this.runs.add(running);
    try {
      return await running;
    } finally {
      this.runs.delete(running);
      // Messages sent after the loop ended but before the run returned (its runEnd hooks) start
      // the next run; else notices left after the run's last request are delivered (a wake starts
      // a run from them). Either after this run's caller has its result.
      const late = this.lateMessages.splice(0);
      if (late.length > 0) setImmediate(() => void this.prompt(late.join("\n\n")));
      else setImmediate(() => this.deliverIfIdle());
    }
  }

  private async runOnce(input: PromptInput | null): Promise<Result<RunSummary, CodingAgentError>> {
    const text = input === null ? null : input.text;
    const aborter = new AbortController();
    this.runAbort = aborter;
    const started = Date.now();
    this.journal.begin();
    let prompt = "";
    let message: UserMessage | undefined;
    if (input !== null) {
      const admitted = await this.host_.beforeAgentStart(input.text);
      if (!admitted.ok) return err({ type: "extension", message: admitted.reason });
      prompt = admitted.prompt;
      const expanded = await expandPrompt(
        { ...input, text: prompt },
        {
          cwd: this.parts.cwd,
          denied: (path) => this.parts.permission.deniedRead(path),
          supportsImages: this.model_.input.includes("image"),
          modelName: modelRef(this.model_),
          ...(this.ownHost && !this.ownHost.mentions.isEmpty
            ? {
                extensions: {
                  answers: (prefix: string) => this.ownHost!.mentions.answers(prefix),
                  resolve: (mention: Mention) => this.ownHost!.mentions.resolve(mention, aborter.signal),
                },
              }
            : {}),
        },
      );
      if (expanded.isErr()) return err({ type: "config", message: expanded.error.message });
      for (const note of expanded.value.notes) this.report("info", note);
      message = { role: "user", content: expanded.value.content, timestamp: Date.now() };
    }
    await this.notices.flush();
    this.agent.replaceMessages(this.session_.context());
    // Where the conversation stood before this prompt: a prompt the model never answers goes back there.
    const before = this.session_.headId;
    await this.host_.notify("runStart", { prompt });
    this.emit({ type: "run_start", prompt });
    this.ledger.startRun();
    this.runExtraUsage = undefined;
    this.stopRequested = false;
    this.stoppedByDenial = false;
    this.runDenials = [];

    // This prompt's own model and allow rules (a command file's), for this run only.
    const restoreModel = this.modelForRun(input?.model);
    const allow = (input?.allow ?? []).filter((rule) => {
      const problem = checkRule(rule);
      if (problem) this.report("warning", `${problem}; not allowed for this run`);
      return problem === undefined;
    });
    if (allow.length > 0) {
      this.parts.permission.allowForRun(allow);
      this.report("info", `Allowed until this run ends (the command's allowed-tools): ${allow.join(", ")}`);
    }
    let run: RunResult;
    try {
      const first = await this.agent.prompt(message === undefined ? [] : [message], {
        signal: aborter.signal,
      });
      if (first.isErr()) return err({ type: "busy", message: first.error.message });
      run = first.value;
      if (run.stopReason === "context_overflow") {
        // Overflow: compact, then retry the run once from the compacted history.
        const compacted = await this.compactWith("overflow");
        if (compacted.isOk()) {
          const retry = await this.agent.prompt([], { signal: aborter.signal });
          if (retry.isOk()) run = mergeRuns(run, retry.value);
        }
      }
    } finally {
      restoreModel();
      if (allow.length > 0) this.parts.permission.endRun();
    }
    if (this.runAbort === aborter) this.runAbort = undefined;
    await this.session_.sync();
    this.parts.permission.endRun();
    const settled = this.journal.settle(run, (messages) => this.agent.replaceMessages(messages));
    run = settled.run;
    this.ledger.addOwn(run.usage);
    const lastAssistant = [...run.messages].reverse().find((m) => m.role === "assistant");
    const error = settled.error;
    // The model never answered (a bad key, a refused request): the prompt leaves the
    // conversation again, so sending it once more does not put it there twice.
    const withdrawn =
      text !== null &&
      run.stopReason === "error" &&
      error?.type !== "journal" &&
      !run.messages.some(
        (m) => (m.role === "assistant" && m.content.length > 0) || m.role === "toolResult",
      ) &&
      (await this.session_.branch(before)).isOk();
    if (withdrawn) this.agent.replaceMessages(this.session_.context());
    const stoppedByDenial = this.stoppedByDenial;
    this.stopRequested = false;
    this.stoppedByDenial = false;
    const summary: RunSummary = {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: this.runExtraUsage ? addUsage(run.usage, this.runExtraUsage) : run.usage,
      text: textOf(lastAssistant),
      durationMs: Date.now() - started,
      ...(error ? { error } : {}),
      unsent: [...(withdrawn ? [text] : []), ...run.unsent.map(userText)],
      ...(this.ledger.runChildren().length > 0 ? { children: this.ledger.runChildren() } : {}),
      ...(stoppedByDenial ? { stoppedBy: "denial" as const } : {}),
      ...(withdrawn ? { promptWithdrawn: true } : {}),
      permissionDenials: [...this.runDenials],
    };
    if (error) await this.host_.notify("runError", { error, stopReason: run.stopReason });
    await this.host_.notify("runEnd", {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: summary.usage,
      durationMs: summary.durationMs,
      ...(error ? { error } : {}),
    });
    this.emit({ type: "run_end", summary });
    return ok(summary);
  }

  /**
   * An extension's notice for the model: queued for the next request while a run goes on,
   * journaled at once otherwise; `wake` starts a run from it when the session is idle, or when
   * the run going on ends without having carried it. A `key` this branch already holds (or that
   * waits in the queue) drops the notice: a delivery retried after a resume lands once.
   */
  persistNotice(source: string, text: string, options: { wake?: boolean; key?: string } = {}): void {
    if (!this.notices.add(source, text, { wake: options.wake === true, key: options.key })) return;
    // A run (from its start until it returns) or a compaction delivers it when it is done.
    if (this.agent.isRunning || this.inRun || this.maintenance || this.closed) return;
    this.deliverNotices();
  }

  private get inRun(): boolean {
    return this.runs.size > 0;
  }

  private deliverIfIdle(): void {
    if (this.closed || this.inRun || this.agent.isRunning || this.maintenance) return;
    this.deliverNotices();
  }

  /** On an idle session: waiting notices start a run when one asked to wake it, else are journaled. */
  private deliverNotices(): void {
    if (this.notices.size === 0 || this.closed) return;
    if (this.notices.wakes) {
      void this.run(null);
      return;
    }
    void this.notices.flush().then(() => {
      if (!this.agent.isRunning) this.agent.replaceMessages(this.session_.context());
    });
  }

  /** A child agent's usage, counted in this session's totals. */
  addChildUsage(child: { agentId: string; title: string }, usage: Usage): void {
    this.ledger.addChild(child, usage);
  }

  recordExternalUsage(usage: ExternalUsage): void {
    this.ledger.addExternal(usage);
  }

  /**
   * Own model usage that did not come from the loop (an extension's one-off completion): the
   * session's, and the run's when one goes on (a tool searching through the provider's own search
   * is part of what the run cost).
   */
  addOwnUsage(usage: Usage): void {
    this.ledger.addOwn(usage);
    if (this.inRun) this.runExtraUsage = addUsage(this.runExtraUsage ?? emptyUsage(), usage);
  }

  usageBreakdown(): UsageBreakdown {
    return this.ledger.breakdown();
  }

  /** Runs before the session closes (child agents are stopped and journaled). */
  onClose(hook: () => Promise<void>): void {
    this.closeHooks.push(hook);
  }

  /** Child agents of this session: the supervisor runs them and is stopped when it closes. */
  attachAgents(supervisor: AgentSupervisor): void {
    this.supervisor = supervisor;
    this.onClose(() => supervisor.stopAll());
  }

  agents(): AgentRecord[] {
    return this.supervisor?.records() ?? [];
  }

  waitForAgents(options: {
    timeoutMs: number;
    signal?: AbortSignal;
  }): Promise<{ result: AgentRunResult; stopped: boolean }[]> {
    return this.supervisor?.settle(options.timeoutMs, options.signal) ?? Promise.resolve([]);
  }

  steer(text: string): void {
    if (this.agent.steer(text).isErr()) this.promptOrKeep(text);
  }

  followUp(text: string): void {
    if (this.agent.followUp(text).isErr()) this.promptOrKeep(text);
  }

  /** The loop took no message: a new run from it, or, while a run is still ending, the next one. */
  private promptOrKeep(text: string): void {
    if (this.inRun) this.lateMessages.push(text);
    else void this.prompt(text);
  }

  abort(): void {
    this.runAbort?.abort();
    this.agent.abort();
    this.maintenance?.abort();
    this.shell?.abort();
  }

  messages(): Message[] {
    return [...this.session_.context()];
  }

  history(): HistoryItem[] {
    return historyOf(this.session_.fold(), (id) => this.session_.getEntry(id));
  }

  tree(): SessionTreeNode[] {
    return sessionTree(this.session_);
  }

  private idle(): Result<void, CodingAgentError> {
    if (this.agent.isRunning)
      return err({ type: "busy", message: "Wait for the run to end (or abort it) first." });
    return ok(undefined);
  }

  /** Moves the conversation to `target` and/or puts the files back (see rewind.ts). */
  private moveTo(
    target: string | null,
    restore: RestoreChoice,
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
    return moveTo(
      {
        session: this.session_,
        ...(this.parts.files ? { files: this.parts.files } : {}),
        moved: async () => {
          this.agent.replaceMessages(this.session_.context());
          await this.host_.notify("sessionStart", { reason: "branch", sessionId: this.session_.id });
        },
      },
      target,
      restore,
    );
  }

  async branch(
    entryId: string,
    options: { restore?: RestoreChoice } = {},
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    if (!this.session_.getEntry(entryId))
      return err({ type: "session", message: `No entry ${entryId} in session ${this.session_.id}.` });
    return this.moveTo(entryId, options.restore ?? "conversation");
  }

  async rewind(
    count = 1,
    options: { restore?: RestoreChoice } = {},
  ): Promise<
    Result<{ entryId: string | null; prompt: string | undefined; files?: FilesRestored }, CodingAgentError>
  > {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    const target = rewindTarget(this.session_, count);
    if (target.isErr()) return err(target.error);
    const moved = await this.moveTo(target.value.parentId, options.restore ?? "conversation");
    if (moved.isErr()) return err(moved.error);
    return ok({ entryId: target.value.parentId, prompt: target.value.text, ...moved.value });
  }

  fileChanges(target: { rewind: number } | { entryId: string }): Result<FileChanges, CodingAgentError> {
    return fileChanges(this.session_, this.parts.files, target);
  }

  async fork(
    entryId?: string,
  ): Promise<Result<{ sessionFile: string; sessionId: string }, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    const forked = await this.session_.fork(entryId ?? this.session_.headId);
    if (forked.isErr()) return err({ type: "session", message: forked.error.message });
    await this.ownHost?.shutdown("fork");
    await this.session_.close();
    this.session_ = forked.value;
    this.agent.replaceMessages(this.session_.context());
    this.agent.configure({ streamOptions: this.requestOptions(this.session_.id) });
    await this.host_.notify("sessionStart", { reason: "fork", sessionId: this.session_.id });
    return ok({ sessionFile: this.session_.path, sessionId: this.session_.id });
  }

  private async compactWith(
    reason: CompactionReason,
    instructions?: string,
    signal?: AbortSignal,
  ): Promise<Result<CompactionOutcome, CodingAgentError>> {
    const declared = (name: string) =>
      declarationOf(this.agent.config.tools?.find((t) => t.name === name) as DeclaredTool | undefined);
    const scope = {
      session: this.session_,
      model: this.model_,
      settings: this.parts.compaction,
      reason,
      declarationOf: declared,
    };
    // Too short to shrink: said by the result alone; no compaction started, no model asked.
    const plan = planCompaction(scope);
    if (plan.isErr()) return err(plan.error);
    const before = contextTokens(this.session_, this.fixed, this.model_);
    this.emit({ type: "compaction_start", reason, tokensBefore: before });
    this.maintenance = new AbortController();
    const abort = () => this.maintenance?.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const config = this.agent.config;
    const outcome = await runCompaction(
      {
        ...scope,
        streamOptions: { ...this.parts.streamOptions, sessionId: this.session_.id },
        fixedTokens: this.fixed,
        ...(instructions ? { instructions } : {}),
        signal: this.maintenance.signal,
        // The summary is asked at the end of the conversation as the model last saw it (same
        // system prompt, tools, cache key and thinking), so its cached prefix serves the request.
        conversation: {
          systemPrompt: config.systemPrompt ?? "",
          tools: (config.tools ?? []).map((t) => ({
            name: t.name,
            description: t.description,
            parameters: t.parameters,
          })),
          streamOptions: this.requestOptions(this.session_.id),
        },
      },
      plan.value,
    );
    signal?.removeEventListener("abort", abort);
    this.maintenance = undefined;
    const spent = outcome.isOk() ? outcome.value.usage : outcome.error.usage;
    if (spent) this.addOwnUsage(spent);
    // A manual compaction held back what was left meanwhile; a run's own compaction leaves it to the run.
    const idle = !this.inRun;
    if (outcome.isOk()) {
      this.agent.replaceMessages(this.session_.context());
      await this.host_.notify("compaction", {
        reason,
        tokensBefore: before,
        tokensAfter: outcome.value.tokensAfter,
      });
      // What an extension persisted from the hook (a loaded skill's body) follows the summary.
      if ((await this.notices.flush()) > 0) this.agent.replaceMessages(this.session_.context());
    }
    this.emit({
      type: "compaction_end",
      reason,
      tokensBefore: before,
      tokensAfter: outcome.isOk() ? outcome.value.tokensAfter : before,
      ok: outcome.isOk(),
      ...(outcome.isErr() ? { error: outcome.error.message } : {}),
    });
    if (idle) this.deliverNotices();
    if (outcome.isErr()) {
      const { usage: _counted, ...error } = outcome.error;
      return err(error as CodingAgentError);
    }
    return ok(outcome.value);
  }

  async compact(
    instructions?: string,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    return this.compactWith("manual", instructions);
  }

  async completeMention(token: string, signal?: AbortSignal): Promise<MentionCompletionInfo[]> {
    if (!this.ownHost || this.ownHost.mentions.isEmpty || this.closed) return [];
    return this.ownHost.mentions.complete(token, signal);
  }

  extensionState(extensionId: string): unknown {
    return this.session_.fold().extensionStates[extensionId];
  }

  diagnostics(): Diagnostic[] {
    return [...this.diagnostics_];
  }

  contextUsage(): ContextUsage {
    const tokens = contextTokens(this.session_, this.fixed, this.model_);
    const contextWindow = this.model_.contextWindow;
    return { tokens, contextWindow, percent: Math.round((tokens / contextWindow) * 1000) / 10 };
  }

  /** This session's usage: its own model calls and its child agents'. */
  usage(): Usage {
    return this.ledger.total();
  }

  /** Idempotent; a second caller waits for the same close (an exit must not outrun the unlock). */
  close(options: { reason?: "exit" | "switch" | "reload" } = {}): Promise<void> {
    this.closing ??= this.closeOnce(options.reason ?? "exit");
    return this.closing;
  }

  private async closeOnce(reason: "exit" | "switch" | "reload"): Promise<void> {
    this.closed = true;
    this.abort();
    for (const hook of this.closeHooks) await hook();
    // The aborted run still journals what it did (tool results, T2s, the cut reply); the session
    // file must be open for that. Briefly: a tool that ignores its abort must not hold the close
    // (and the lock) for the loop's whole grace; a forced exit gives close() only a moment.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.runs]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, RUN_END_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    await this.ownHost?.shutdown(reason);
    await this.notices.flush();
    await this.session_.close();
    if (this.parts.temporaryDir) rmSync(this.parts.temporaryDir, { recursive: true, force: true });
    if (this.parts.ownsSandbox) await this.parts.sandbox?.close();
  }
}

function mergeRuns(a: RunResult, b: RunResult): RunResult {
  return {
    ...b,
    turns: a.turns + b.turns,
    usage: addUsage(a.usage, b.usage),
    messages: [...a.messages, ...b.messages],
    unsent: [...a.unsent, ...b.unsent],
  };
}
