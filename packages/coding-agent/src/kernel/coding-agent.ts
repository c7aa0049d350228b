// The CodingAgent: one session, one agent loop, one extension host. It turns loop events into
// journal entries and UI events, runs hooks around runs, and keeps the agent's history equal to
// the fold of the journal.
import { rmSync } from "node:fs";
import { Agent, type AgentTool, type RunResult } from "@keel/agent";
import { addUsage, emptyUsage, type Message, type Model, type StreamOptions, type Usage } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import { recoveryMessage, recoveryToolResults, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { CompactionSettings } from "../compaction/policy.js";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionHost } from "../host/extension-host.js";
import { trustProject } from "../trust/store.js";
import { createAgentEventBridge } from "./agent-events.js";
import { BUILTIN_COMMANDS, runBuiltinCommand } from "./commands.js";
import { runCompaction } from "./compactor.js";
import { contextTokens } from "./context-size.js";
import { JournalGuard, readOnlyRefusal } from "./journal-guard.js";
import {
  createAfterToolCall,
  createBeforeToolCall,
  createPrepareRequest,
  type ToolPermission,
} from "./seams.js";
import { sessionTree } from "./tree.js";
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  CommandInfo,
  CompactionReason,
  ContextUsage,
  RunSummary,
  SessionTreeNode,
} from "./types.js";

export interface KernelParts {
  cwd: string;
  projectRoot: string;
  /** The Keel home (trust store, config). */
  home: string;
  session: Session;
  temporaryDir?: string;
  model: Model;
  resolveModel: (ref: Model | string) => Result<Model, CodingAgentError>;
  systemPrompt: string;
  builtinTools: AgentTool[];
  streamOptions: StreamOptions;
  maxTurns?: number;
  compaction: CompactionSettings;
  permission: ToolPermission;
  diagnostics: Diagnostic[];
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
  private host_!: ExtensionHost;
  private readonly agent: Agent;
  private model_: Model;
  private readonly listeners = new Set<(event: CodingAgentEvent) => void>();
  private readonly diagnostics_: Diagnostic[];
  private total: Usage = emptyUsage();
  private fixed = 0;
  private maintenance: AbortController | undefined;
  private closed = false;
  private listenerFailed = false;
  private readonly journal = new JournalGuard(() => this.session_);
  private closing: Promise<void> | undefined;

  constructor(private readonly parts: KernelParts) {
    this.session_ = parts.session;
    this.model_ = parts.model;
    this.diagnostics_ = [...parts.diagnostics];
    const seams = {
      session: () => this.session_,
      host: () => this.host_,
      model: () => this.model_,
      settings: parts.compaction,
      fixedTokens: () => this.fixed,
      permission: parts.permission,
      compact: async (reason: "threshold", signal: AbortSignal) =>
        (await this.compactWith(reason, undefined, signal)).isOk(),
      syncHistory: (messages: Message[]) => this.agent.replaceMessages(messages),
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
      beforeToolCall: this.journal.beforeToolCall(createBeforeToolCall(seams)),
      afterToolCall: createAfterToolCall(seams),
      onListenerError: (error) => this.report("warning", `event listener failed: ${String(error)}`),
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

  /** Second construction step: the host needs the kernel's services, the kernel needs the host's tools. */
  attachHost(host: ExtensionHost, systemPrompt: string): void {
    this.host_ = host;
    const tools = [...this.parts.builtinTools, ...host.tools()];
    this.agent.configure({ tools, systemPrompt });
    this.fixed = Math.ceil(
      (systemPrompt.length + JSON.stringify(tools.map((t) => [t.name, t.description, t.parameters])).length) /
        4,
    );
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
  get host(): ExtensionHost {
    return this.host_;
  }
  toolNames(): string[] {
    return this.agent.config.tools?.map((t) => t.name) ?? [];
  }

  model(): Model {
    return this.model_;
  }

  setModel(ref: Model | string): Result<Model, CodingAgentError> {
    const resolved = this.parts.resolveModel(ref);
    if (resolved.isErr()) return resolved;
    this.model_ = resolved.value;
    this.agent.configure({ model: resolved.value });
    void this.session_
      .appendEntry({ type: "model_change", provider: resolved.value.provider, modelId: resolved.value.id })
      .then((r) => {
        if (r.isErr()) this.report("error", `Could not journal the model change: ${r.error.message}`);
      });
    return ok(resolved.value);
  }

  emit(event: CodingAgentEvent): void {
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
    if (this.closed) return err({ type: "closed", message: "This agent is closed." });
    if (this.agent.isRunning)
      return err({ type: "busy", message: "A run is in progress: steer() or followUp() it, or abort() it." });
    const readOnly = readOnlyRefusal(this.session_);
    if (readOnly) return err(readOnly);
    const started = Date.now();
    this.journal.begin();
    const admitted = await this.host_.beforeAgentStart(text);
    if (!admitted.ok) return err({ type: "extension", message: admitted.reason });
    await this.host_.notify("runStart", { prompt: admitted.prompt });
    this.emit({ type: "run_start", prompt: admitted.prompt });

    const first = await this.agent.prompt(admitted.prompt);
    if (first.isErr()) return err({ type: "busy", message: first.error.message });
    let run: RunResult = first.value;
    if (run.stopReason === "context_overflow") {
      // Overflow: compact, then retry the run once from the compacted history.
      const compacted = await this.compactWith("overflow");
      if (compacted.isOk()) {
        const retry = await this.agent.prompt([]);
        if (retry.isOk()) run = mergeRuns(run, retry.value);
      }
    }
    await this.session_.sync();
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

  steer(text: string): void {
    if (this.agent.steer(text).isErr()) void this.prompt(text);
  }

  followUp(text: string): void {
    if (this.agent.followUp(text).isErr()) void this.prompt(text);
  }

  abort(): void {
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
    const before = contextTokens(this.session_, this.fixed);
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
    if (outcome.isOk()) this.agent.replaceMessages(this.session_.context());
    this.emit({
      type: "compaction_end",
      reason,
      tokensBefore: before,
      tokensAfter: outcome.isOk() ? outcome.value.tokensAfter : before,
      ok: outcome.isOk(),
      ...(outcome.isErr() ? { error: outcome.error.message } : {}),
    });
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
      ...this.host_.commands().map((c) => ({
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
    const hosted = this.host_.commands().find((c) => c.name === name);
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
    const tokens = contextTokens(this.session_, this.fixed);
    const contextWindow = this.model_.contextWindow;
    return { tokens, contextWindow, percent: Math.round((tokens / contextWindow) * 1000) / 10 };
  }

  usage(): Usage {
    return this.total;
  }

  /** Idempotent; a second caller waits for the same close (an exit must not outrun the unlock). */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    this.closed = true;
    this.agent.abort();
    await this.host_?.shutdown("exit");
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
