// The CodingAgent: one session, one agent loop, one extension host. It turns loop events into
// journal entries and UI events, runs hooks around runs, and keeps the agent's history equal to
// the fold of the journal.
import { rmSync } from "node:fs";
import { Agent, type AgentTool, type RunResult } from "@keel/agent";
import { addUsage, emptyUsage, type Message, type Model, type StreamOptions, type Usage } from "@keel/ai";
import type { AgentRecord, Diagnostic, ExternalUsage } from "@keel/extension-sdk";
import { recoveryMessage, recoveryToolResults, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { CompactionSettings } from "../compaction/policy.js";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionHost, HostView } from "../host/extension-host.js";
import { trustProject } from "../trust/store.js";
import { createAgentEventBridge } from "./agent-events.js";
import type { AgentSupervisor } from "./agents.js";
import { BUILTIN_COMMANDS, runBuiltinCommand } from "./commands.js";
import { runCompaction } from "./compactor.js";
import { contextTokens, textTokens } from "./context-size.js";
import { type DenialInput, toDenial } from "./denials.js";
import { JournalGuard, readOnlyRefusal } from "./journal-guard.js";
import { NoticeQueue } from "./notices.js";
import type { KernelPermission } from "./permission.js";
import {
  type BegunOperations,
  createAfterToolCall,
  createBeforeToolCall,
  createPrepareRequest,
  createSettleUnstarted,
  type ToolPermission,
} from "./seams.js";
import { sessionTree } from "./tree.js";
import { previewTrust, type TrustPreview } from "./trust-preview.js";
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  CommandInfo,
  CompactionReason,
  ContextUsage,
  PermissionDenial,
  RunSummary,
  SessionTreeNode,
} from "./types.js";

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
  builtinTools: AgentTool[];
  streamOptions: StreamOptions;
  maxTurns?: number;
  compaction: CompactionSettings;
  permission: KernelPermission;
  diagnostics: Diagnostic[];
  /** Set for a child agent's kernel: it names the agent in events and approvals. */
  agent?: { agentId: string; title: string };
}

/** Usage beyond this kernel's own model calls: child agents and external services. */
export interface UsageBreakdown {
  /** This kernel's own model calls. */
  own: Usage;
  /** Each child agent's total, in the order they started. */
  children: { agentId: string; title: string; usage: Usage }[];
  /** Services extensions reported (search credits …), summed per source. */
  external: ExternalUsage[];
}

function textOf(message: Message | undefined): string {
  if (!message || message.role === "user") return "";
  return message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
}

function userText(message: Message): string {
  if (message.role !== "user") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
}

export class KernelAgent implements CodingAgent {
  private session_: Session;
  private host_!: HostView;
  private ownHost: ExtensionHost | undefined;
  private readonly agent: Agent;
  readonly notices: NoticeQueue;
  private readonly begun: BegunOperations = new Map();
  private children = new Map<string, { agentId: string; title: string; usage: Usage }>();
  private externalUsage = new Map<string, ExternalUsage>();
  private runChildren: { agentId: string; title: string; usage: Usage }[] = [];
  private runDenials: PermissionDenial[] = [];
  private closeHooks: (() => Promise<void>)[] = [];
  private supervisor: AgentSupervisor | undefined;
  private model_: Model;
  private readonly listeners = new Set<(event: CodingAgentEvent) => void>();
  private readonly diagnostics_: Diagnostic[];
  private total: Usage = emptyUsage();
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

  constructor(private readonly parts: KernelParts) {
    this.session_ = parts.session;
    this.model_ = parts.model;
    this.diagnostics_ = [...parts.diagnostics];
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
    };
    this.agent = new Agent({
      model: parts.model,
      systemPrompt: parts.systemPrompt,
      tools: parts.builtinTools,
      streamOptions: { ...parts.streamOptions, sessionId: parts.session.id },
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
      }),
    );
  }

  /**
   * Second construction step: the host needs the kernel's services, the kernel needs the host's
   * tools. A session's kernel owns its ExtensionHost; a child agent's gets a view of its parent's.
   */
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

  /** What trusting the project would let it do, read (never run), with what each extension adds. */
  async trustPreview(): Promise<TrustPreview> {
    const preview = previewTrust({
      projectRoot: this.parts.projectRoot,
      cwd: this.parts.cwd,
      home: this.parts.home,
    });
    const fromExtensions =
      (await this.ownHost?.trustPreviews({ cwd: this.parts.cwd, projectRoot: this.parts.projectRoot })) ?? [];
    return fromExtensions.length > 0 ? { ...preview, fromExtensions } : preview;
  }

  trust(): Result<{ projectRoot: string }, CodingAgentError> {
    const trusted = trustProject(this.parts.projectRoot, { home: this.parts.home, cwd: this.parts.cwd });
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
    if (chosen.value.warning) this.report("warning", chosen.value.warning);
    const resolved = ok(chosen.value.model);
    this.model_ = resolved.value;
    this.agent.configure({ model: resolved.value });
    void this.session_
      .appendEntry({ type: "model_change", provider: resolved.value.provider, modelId: resolved.value.id })
      .then((r) => {
        if (r.isErr()) this.report("error", `Could not journal the model change: ${r.error.message}`);
      });
    return ok(resolved.value);
  }

  /** The gate's blocks become permission_denied events (the check is shared with child agents). */
  private reportingDenials(check: ToolPermission): ToolPermission {
    return async (call) => {
      const outcome = await check(call);
      if (outcome.action === "block") {
        const { toolCallId, toolName, args } = call;
        this.denied({ toolCallId, toolName, args, reason: outcome.reason, by: outcome.by ?? "rule" });
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

  async prompt(text: string): Promise<Result<RunSummary, CodingAgentError>> {
    return this.run(text);
  }

  /**
   * A run from `text`, or (null) from the history as it is — how a run starts that a notice woke
   * (a background agent finished while the session was idle).
   */
  private async run(text: string | null): Promise<Result<RunSummary, CodingAgentError>> {
    if (this.closed) return err({ type: "closed", message: "This agent is closed." });
    if (this.agent.isRunning || this.inRun)
      return err({ type: "busy", message: "A run is in progress: steer() or followUp() it, or abort() it." });
    const readOnly = readOnlyRefusal(this.session_);
    if (readOnly) return err(readOnly);
    const running = this.runOnce(text);
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

  private async runOnce(text: string | null): Promise<Result<RunSummary, CodingAgentError>> {
    const aborter = new AbortController();
    this.runAbort = aborter;
    const started = Date.now();
    this.journal.begin();
    let prompt = "";
    if (text !== null) {
      const admitted = await this.host_.beforeAgentStart(text);
      if (!admitted.ok) return err({ type: "extension", message: admitted.reason });
      prompt = admitted.prompt;
    }
    await this.notices.flush();
    this.agent.replaceMessages(this.session_.context());
    await this.host_.notify("runStart", { prompt });
    this.emit({ type: "run_start", prompt });
    this.runChildren = [];
    this.runDenials = [];

    const first = await this.agent.prompt(text === null ? [] : prompt, { signal: aborter.signal });
    if (first.isErr()) return err({ type: "busy", message: first.error.message });
    let run: RunResult = first.value;
    if (run.stopReason === "context_overflow") {
      // Overflow: compact, then retry the run once from the compacted history.
      const compacted = await this.compactWith("overflow");
      if (compacted.isOk()) {
        const retry = await this.agent.prompt([], { signal: aborter.signal });
        if (retry.isOk()) run = mergeRuns(run, retry.value);
      }
    }
    if (this.runAbort === aborter) this.runAbort = undefined;
    await this.session_.sync();
    this.parts.permission.endRun();
    const settled = this.journal.settle(run, (messages) => this.agent.replaceMessages(messages));
    run = settled.run;
    this.total = addUsage(this.total, run.usage);
    const lastAssistant = [...run.messages].reverse().find((m) => m.role === "assistant");
    const error = settled.error;
    const summary: RunSummary = {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: run.usage,
      text: textOf(lastAssistant),
      durationMs: Date.now() - started,
      ...(error ? { error } : {}),
      unsent: run.unsent.map(userText),
      ...(this.runChildren.length > 0 ? { children: [...this.runChildren] } : {}),
      permissionDenials: [...this.runDenials],
    };
    if (error) await this.host_.notify("runError", { error, stopReason: run.stopReason });
    await this.host_.notify("runEnd", {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: run.usage,
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
    const known = this.children.get(child.agentId) ?? { ...child, usage: emptyUsage() };
    known.usage = addUsage(known.usage, usage);
    this.children.set(child.agentId, known);
    const inRun = this.runChildren.find((c) => c.agentId === child.agentId);
    if (inRun) inRun.usage = addUsage(inRun.usage, usage);
    else this.runChildren.push({ ...child, usage });
  }

  recordExternalUsage(usage: ExternalUsage): void {
    const known = this.externalUsage.get(usage.source) ?? { source: usage.source };
    const sum = (a: number | undefined, b: number | undefined) =>
      a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
    const next: ExternalUsage = { source: usage.source };
    const requests = sum(known.requests, usage.requests);
    const credits = sum(known.credits, usage.credits);
    const costUsd = sum(known.costUsd, usage.costUsd);
    if (requests !== undefined) next.requests = requests;
    if (credits !== undefined) next.credits = credits;
    if (costUsd !== undefined) next.costUsd = costUsd;
    this.externalUsage.set(usage.source, next);
  }

  /** Adds own model usage that did not come from a run (an extension's one-off completion). */
  addOwnUsage(usage: Usage): void {
    this.total = addUsage(this.total, usage);
  }

  usageBreakdown(): UsageBreakdown {
    return {
      own: this.total,
      children: [...this.children.values()],
      external: [...this.externalUsage.values()],
    };
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
  }

  messages(): Message[] {
    return [...this.session_.context()];
  }

  tree(): SessionTreeNode[] {
    return sessionTree(this.session_);
  }

  private idle(): Result<void, CodingAgentError> {
    if (this.agent.isRunning)
      return err({ type: "busy", message: "Wait for the run to end (or abort it) first." });
    return ok(undefined);
  }

  async branch(entryId: string): Promise<Result<void, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    const moved = await this.session_.branch(entryId);
    if (moved.isErr()) return err({ type: "session", message: moved.error.message });
    this.agent.replaceMessages(this.session_.context());
    await this.host_.notify("sessionStart", { reason: "branch", sessionId: this.session_.id });
    return ok(undefined);
  }

  async rewind(
    count = 1,
  ): Promise<Result<{ entryId: string | null; prompt: string | undefined }, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    const folded = this.session_.fold();
    const prompts: { entryId: string; text: string }[] = [];
    folded.messages.forEach((m, i) => {
      const source = folded.messageSources[i]!;
      const entry = this.session_.getEntry(source);
      if (m.role === "user" && entry?.type === "message")
        prompts.push({ entryId: source, text: userText(m) });
    });
    const target = prompts[prompts.length - count];
    if (!target)
      return err({ type: "session", message: `There are only ${prompts.length} prompts to rewind.` });
    const rewound = await this.session_.rewind(target.entryId);
    if (rewound.isErr()) return err({ type: "session", message: rewound.error.message });
    this.agent.replaceMessages(this.session_.context());
    await this.host_.notify("sessionStart", { reason: "branch", sessionId: this.session_.id });
    return ok({ entryId: rewound.value.parentId, prompt: target.text });
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
    this.agent.configure({ streamOptions: { ...this.parts.streamOptions, sessionId: this.session_.id } });
    await this.host_.notify("sessionStart", { reason: "fork", sessionId: this.session_.id });
    return ok({ sessionFile: this.session_.path, sessionId: this.session_.id });
  }

  private async compactWith(
    reason: CompactionReason,
    instructions?: string,
    signal?: AbortSignal,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>> {
    const before = contextTokens(this.session_, this.fixed, this.model_);
    this.emit({ type: "compaction_start", reason, tokensBefore: before });
    this.maintenance = new AbortController();
    const abort = () => this.maintenance?.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const outcome = await runCompaction({
      session: this.session_,
      model: this.model_,
      settings: this.parts.compaction,
      streamOptions: { ...this.parts.streamOptions, sessionId: this.session_.id },
      fixedTokens: this.fixed,
      reason,
      ...(instructions ? { instructions } : {}),
      signal: this.maintenance.signal,
    });
    signal?.removeEventListener("abort", abort);
    this.maintenance = undefined;
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
    return outcome;
  }

  async compact(
    instructions?: string,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>> {
    const idle = this.idle();
    if (idle.isErr()) return err(idle.error);
    return this.compactWith("manual", instructions);
  }

  commands(): CommandInfo[] {
    return [
      ...BUILTIN_COMMANDS,
      ...(this.ownHost?.commands() ?? []).map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
        source: c.source,
      })),
    ];
  }

  async runCommand(
    name: string,
    args: string,
  ): Promise<Result<{ message?: string; prompt?: string }, CodingAgentError>> {
    const hosted = this.ownHost?.commands().find((c) => c.name === name);
    if (hosted) return ok((await hosted.run(args)) ?? {});
    return runBuiltinCommand(this, name, args);
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
    let sum = this.total;
    for (const child of this.children.values()) sum = addUsage(sum, child.usage);
    return sum;
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
