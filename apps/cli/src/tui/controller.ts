// The TUI's side of the agent: creates and swaps CodingAgents, and sends prompts, shell commands,
// steering, mode changes and aborts. Their events become store updates in agent-events.ts; the
// kernel's UI questions are answered with dialogs in host-ui.ts.
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  CodingAgentOptions,
  PermissionModeName,
  PromptOptions,
  SessionChoice,
} from "@keel/coding-agent";
import { err, ok, type Result } from "neverthrow";
import { refusalHint } from "../refusal-hint.js";
import type { TuiKernel } from "../tui-kernel.js";
import { showAgentEvent } from "./agent-events.js";
import { type CommandChoice, matchingCommands } from "./completion.js";
import { editorWith } from "./editor.js";
import { ExtensionMentions } from "./extension-mentions.js";
import { FileIndex } from "./file-index.js";
import { tuiCommands } from "./host-commands.js";
import { inputDialog, pickDialog, tuiHostUI } from "./host-ui.js";
import { runSlash } from "./slash.js";
import type { UiStore } from "./store.js";

const DOUBLE_PRESS_MS = 2000;
const REPLAY_MESSAGES = 200;

/** Shift+Tab's order; bypassPermissions joins only when keel started in it. */
const MODE_CYCLE: PermissionModeName[] = ["default", "acceptEdits", "plan"];

export class Controller {
  agent: CodingAgent | undefined;
  /** The project's files, for @-completion. */
  readonly files: FileIndex;
  /** Extensions' `@prefix:ref` mentions, for @-completion. */
  readonly mentions = new ExtensionMentions(() => this.agent?.completeMention.bind(this.agent));
  private unsubscribe: (() => void) | undefined;
  private subscribed = false;
  private lastInterrupt = 0;
  private interruptedRun = false;
  private hintTimer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  /** The mode keel started in, if it is outside the cycle (bypassPermissions, dontAsk). */
  private startMode: PermissionModeName | undefined;

  constructor(
    readonly store: UiStore,
    readonly options: CodingAgentOptions,
    readonly kernel: TuiKernel,
    private readonly onExit: (code: number) => void,
  ) {
    this.files = new FileIndex(options.cwd);
    store.transcript.promptParts = kernel.promptParts;
    store.transcript.shellParts = kernel.shellNoticeParts;
    // The session in front now: a resumed history is shown as its tools describe their calls.
    store.transcript.toolSummary = (name, args) => this.agent?.describeToolCall(name, args).summary ?? "";
  }

  /** The agent's commands as they are now (read live from its registry, never copied). */
  get commands(): CommandChoice[] {
    return this.agent?.commands.list() ?? [];
  }

  get home(): string {
    return this.options.home ?? this.kernel.resolveKeelHome();
  }

  get sessionDir(): string {
    return this.options.sessionDir ?? this.kernel.defaultSessionDir(this.home, this.options.cwd);
  }

  pick(
    title: string,
    options: { label: string; detail?: string }[],
    selected = 0,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    return pickDialog(this.store, title, options, selected, signal);
  }

  ask(title: string, placeholder?: string, signal?: AbortSignal): Promise<string | undefined> {
    return inputDialog(this.store, title, placeholder, signal);
  }

  /** Creates an agent for `session` (the options' choice when absent) and shows it. */
  async open(session?: SessionChoice): Promise<Result<CodingAgent, CodingAgentError>> {
    const created = await this.kernel.createCodingAgent({
      ...this.options,
      ...(session ? { session } : {}),
      ui: tuiHostUI(this.store, () => this.subscribed),
      commands: tuiCommands(this),
    });
    if (created.isErr()) return err(created.error);
    this.attach(created.value);
    return ok(created.value);
  }

  private attach(agent: CodingAgent): void {
    this.mentions.reset();
    this.agent = agent;
    this.startMode ??= agent.permissionMode();
    this.unsubscribe = agent.subscribe((event) => this.onEvent(event));
    this.subscribed = true;
    const { store } = this;
    this.refresh();
    const history = agent.history();
    if (history.length > 0) {
      store.transcript.note("dim", `Resumed session ${agent.sessionId} (${history.length} messages).`);
      store.transcript.notesInThinking = agent.model().thinking?.notesInThinking === true;
      store.transcript.replay(history.slice(-REPLAY_MESSAGES));
    }
    const session = agent.sessionFile ? `session ${agent.sessionId.slice(0, 8)}` : "not saved (--no-session)";
    store.transcript.note(
      "dim",
      `keel · ${store.status.model} · ${session} · ${agent.cwd}  (/help for commands)`,
    );
    for (const d of agent.diagnostics()) {
      const who = d.extensionId === "kernel" ? "" : `${d.extensionId}: `;
      store.transcript.note(d.level === "info" ? "dim" : d.level, `${who}${d.message}`);
    }
    // Commands come and go (an MCP server connects, a skill is added): an open menu follows.
    const unsubscribeCommands = agent.commands.subscribe(() => {
      if (store.completionKind !== "command" || !/^\/\S*$/.test(store.editor.text)) return;
      store.completions = matchingCommands(store.editor.text, this.commands);
      if (store.completionIndex >= store.completions.length) store.completionIndex = 0;
      store.schedule();
    });
    const unsubscribeEvents = this.unsubscribe;
    this.unsubscribe = () => {
      unsubscribeEvents?.();
      unsubscribeCommands();
    };
    store.publish();
  }

  /** Closes the current agent and opens another (/new, /clear, /resume, after /trust). */
  async swap(session: SessionChoice): Promise<boolean> {
    if (this.agent?.isRunning) {
      this.store.note("warning", "A run is in progress: wait for it or press Esc first.");
      return false;
    }
    await this.detach(0, "switch");
    const opened = await this.open(session);
    if (opened.isOk()) return true;
    this.store.note("error", opened.error.message);
    if (session.mode === "new") {
      this.exit(1);
      return false;
    }
    const fresh = await this.open({ mode: "new" });
    if (fresh.isErr()) {
      this.store.note("error", fresh.error.message);
      this.exit(1);
    }
    return false;
  }

  /** The session to name on exit, so the user can come back to it (saved, and with a prompt). */
  resumeLine(): string | undefined {
    return this.lastSession?.hasPrompt
      ? `Resume this session with: keel -r ${this.lastSession.id}${this.cwdFlag()}`
      : undefined;
  }

  private lastSession: { id: string; hasPrompt: boolean } | undefined;

  private cwdFlag(): string {
    return this.options.cwd === process.cwd() ? "" : ` --cwd ${JSON.stringify(this.options.cwd)}`;
  }

  /**
   * Closes the current agent; a run still going is aborted and given `settleMs` to end cleanly.
   * A second call while one is under way waits for that one (an exit must not outrun the unlock).
   */
  detach(settleMs = 0, reason: "exit" | "switch" = "exit"): Promise<void> {
    this.detaching ??= this.detachOnce(settleMs, reason).finally(() => {
      this.detaching = undefined;
    });
    return this.detaching;
  }

  private detaching: Promise<void> | undefined;

  private async detachOnce(settleMs: number, reason: "exit" | "switch"): Promise<void> {
    if (this.current) {
      this.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.current,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, settleMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.subscribed = false;
    const agent = this.agent;
    this.agent = undefined;
    if (agent?.sessionFile)
      this.lastSession = {
        id: agent.sessionId,
        hasPrompt: agent.tree().some((n) => n.type === "message" && n.text.startsWith("user:")),
      };
    this.store.statuses.clear();
    this.store.widgets.clear();
    this.store.dismissDialogs();
    await agent?.close({ reason });
  }

  /** Re-reads model, thinking, mode, usage and context (after a run, a turn, or a command). */
  refresh(): void {
    const agent = this.agent;
    if (!agent) return;
    const usage = agent.usage();
    const thinking = agent.thinking();
    this.store.status = {
      ...this.store.status,
      model: this.kernel.modelRef(agent.model()),
      contextPercent: agent.contextUsage().percent,
      mode: agent.permissionMode(),
      thinking: thinking.effort === "none" ? "" : thinking.effort,
      tokensIn: usage.input + usage.cacheRead + usage.cacheWrite,
      tokensOut: usage.output,
      cost: usage.cost.total,
    };
  }

  /** Shift+Tab: the next permission mode, from the next tool call on. */
  cycleMode(): void {
    const agent = this.agent;
    if (!agent) return;
    const cycle =
      this.startMode === "bypassPermissions" ? [...MODE_CYCLE, "bypassPermissions" as const] : MODE_CYCLE;
    const at = cycle.indexOf(agent.permissionMode());
    const next = cycle[(at + 1) % cycle.length]!;
    agent.setPermissionMode(next);
    this.refresh();
    this.store.publish();
  }

  private onEvent(event: CodingAgentEvent): void {
    showAgentEvent(this, event);
  }

  /** Enter: a slash command, a shell command, a new prompt, or (mid-run) steering. */
  submit(text: string, kind: "steer" | "followUp" = "steer"): void {
    const trimmed = text.trim();
    if (!trimmed || !this.agent) return;
    if (trimmed.startsWith("/") && !trimmed.startsWith("//")) {
      void runSlash(this, trimmed);
      return;
    }
    if (trimmed.startsWith("!") && trimmed.length > 1) {
      void this.shell(trimmed.slice(1).trim());
      return;
    }
    if (this.agent.isRunning || this.store.running) {
      if (this.store.images.some((p) => trimmed.includes(p.marker))) {
        // Steering is text; an image goes with a prompt of its own.
        this.store.editor = editorWith(trimmed);
        this.store.note(
          "warning",
          "Images go with a new prompt: send it once the agent is done (or press Esc).",
        );
        return;
      }
      if (kind === "steer") this.agent.steer(trimmed);
      else this.agent.followUp(trimmed);
      this.store.queued = [...this.store.queued, { kind, text: trimmed }];
      this.store.publish();
      return;
    }
    void this.run(trimmed);
  }

  /** `!cmd`: the user's own command, run unasked (in the sandbox), shown as a tool call, its output kept for the model. */
  async shell(command: string): Promise<void> {
    const agent = this.agent;
    if (!agent || !command) return;
    if (agent.isRunning || this.store.running) {
      this.store.note(
        "warning",
        "A run is in progress: wait for it (or press Esc) before running a command.",
      );
      return;
    }
    this.store.running = true;
    this.store.publish();
    const ran = await agent.runShell(command);
    if (agent !== this.agent) return;
    this.store.running = false;
    if (ran.isErr()) this.store.note("error", ran.error.message);
    else
      this.store.note("dim", "The output is in the conversation: the model sees it with your next prompt.");
  }

  /** `options`: a command's own settings for this prompt (its model, its allowed-tools). */
  run(prompt: string, options?: PromptOptions): Promise<void> {
    const run = this.runPrompt(prompt, options).finally(() => {
      if (this.current === run) this.current = undefined;
    });
    this.current = run;
    return run;
  }

  private async runPrompt(prompt: string, options?: PromptOptions): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    this.interruptedRun = false;
    this.store.running = true;
    this.store.publish();
    // Images pasted into this prompt go with it while their markers are still in the text.
    const images = this.store.images.filter((p) => prompt.includes(p.marker)).map((p) => p.image);
    this.store.images = [];
    const result = await agent.prompt({ text: prompt, ...(images.length > 0 ? { images } : {}), ...options });
    if (agent !== this.agent) return;
    this.store.running = false;
    if (result.isErr()) {
      this.store.transcript.note("error", result.error.message);
      const hint = refusalHint(result.error, agent.sessionFile ? agent.sessionId : undefined);
      if (hint) this.store.transcript.note("info", hint);
    }
    this.store.publish();
  }

  abort(): void {
    this.agent?.abort();
    this.store.dismissDialogs();
  }

  /** Esc: stops the run (and its open approval). */
  escape(): void {
    if (this.store.running) {
      this.abort();
      this.flash("Interrupted.");
    }
  }

  /** Ctrl+C: aborts a run, clears the prompt, or (twice within 2 s) exits. */
  interrupt(): void {
    const now = Date.now();
    if (now - this.lastInterrupt < DOUBLE_PRESS_MS) {
      this.exit(this.interruptedRun ? 130 : 0);
      return;
    }
    this.lastInterrupt = now;
    if (this.store.running) {
      this.interruptedRun = true;
      this.abort();
    } else if (this.store.editor.text) {
      this.store.editor = editorWith("");
    }
    this.flash("Press Ctrl+C again to exit.");
  }

  flash(text: string): void {
    this.store.hint = text;
    this.store.publish();
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => {
      this.store.hint = undefined;
      this.store.publish();
    }, DOUBLE_PRESS_MS);
    this.hintTimer.unref?.();
  }

  exit(code: number): void {
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.onExit(code);
  }
}
