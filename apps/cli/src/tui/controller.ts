// The TUI's side of the agent: creates and swaps CodingAgents, turns their events into store
// updates, answers the kernel's UI questions with dialogs, and sends prompts, steering and aborts.
import type { Message, Usage } from "@keel/ai";
import type {
  CodingAgent,
  CodingAgentError,
  CodingAgentEvent,
  CodingAgentOptions,
  HostUI,
  SessionChoice,
} from "@keel/coding-agent";
import { err, ok, type Result } from "neverthrow";
import { refusalHint } from "../refusal-hint.js";
import type { TuiKernel } from "../tui-kernel.js";
import type { CommandChoice } from "./completion.js";
import { editorWith } from "./editor.js";
import { runSlash } from "./slash.js";
import type { UiStore } from "./store.js";

/** Commands the TUI adds to the kernel's (pickers and process control live here). */
const TUI_COMMANDS: CommandChoice[] = [
  { name: "resume", description: "Resume another session of this project" },
  { name: "todos", description: "Show the todo list" },
];

const DOUBLE_PRESS_MS = 2000;
const REPLAY_MESSAGES = 200;

export class Controller {
  agent: CodingAgent | undefined;
  commands: CommandChoice[] = [];
  private unsubscribe: (() => void) | undefined;
  private subscribed = false;
  private lastInterrupt = 0;
  private interruptedRun = false;
  private hintTimer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;

  constructor(
    readonly store: UiStore,
    readonly options: CodingAgentOptions,
    readonly kernel: TuiKernel,
    private readonly onExit: (code: number) => void,
  ) {}

  get home(): string {
    return this.options.home ?? this.kernel.resolveKeelHome();
  }

  get sessionDir(): string {
    return this.options.sessionDir ?? this.kernel.defaultSessionDir(this.home, this.options.cwd);
  }

  private hostUI(): HostUI {
    const store = this.store;
    return {
      supports: { status: true, widget: true, notify: true, confirm: true, select: true, input: true },
      // Also sent as events; handled here too because extensions draw during createCodingAgent.
      setStatus: (key, text) => {
        if (text === undefined) store.statuses.delete(key);
        else store.statuses.set(key, text);
        store.schedule();
      },
      setWidget: (key, lines) => {
        if (lines === undefined) store.widgets.delete(key);
        else store.widgets.set(key, lines);
        store.schedule();
      },
      notify: (message, level = "info") => {
        if (!this.subscribed) store.note(level, message);
      },
      approve: (request) => store.ask((answer) => ({ kind: "approval", request, selected: 0, answer })),
      confirm: async (title, message) => {
        const yes = await store.ask<boolean | undefined>((answer) => ({
          kind: "confirm",
          title,
          ...(message !== undefined ? { message } : {}),
          selected: 0,
          answer,
        }));
        return yes === undefined ? { status: "cancelled" } : { status: "ok", value: yes };
      },
      select: async (title, options) => {
        const index = await this.pick(
          title,
          options.map((label) => ({ label })),
        );
        return index === undefined ? { status: "cancelled" } : { status: "ok", value: options[index]! };
      },
      input: async (title, placeholder) => {
        const text = await store.ask<string | undefined>((answer) => ({
          kind: "input",
          title,
          ...(placeholder !== undefined ? { placeholder } : {}),
          editor: editorWith(""),
          answer,
        }));
        return text === undefined ? { status: "cancelled" } : { status: "ok", value: text };
      },
    };
  }

  pick(
    title: string,
    options: { label: string; detail?: string }[],
    selected = 0,
  ): Promise<number | undefined> {
    return this.store.ask<number | undefined>((answer) => ({
      kind: "select",
      title,
      options,
      selected,
      answer,
    }));
  }

  /** Creates an agent for `session` (the options' choice when absent) and shows it. */
  async open(session?: SessionChoice): Promise<Result<CodingAgent, CodingAgentError>> {
    const created = await this.kernel.createCodingAgent({
      ...this.options,
      ...(session ? { session } : {}),
      ui: this.hostUI(),
    });
    if (created.isErr()) return err(created.error);
    this.attach(created.value);
    return ok(created.value);
  }

  private attach(agent: CodingAgent): void {
    this.agent = agent;
    this.unsubscribe = agent.subscribe((event) => this.onEvent(event));
    this.subscribed = true;
    const { store } = this;
    this.refresh();
    const history = agent.messages();
    if (history.length > 0) {
      store.transcript.note("dim", `Resumed session ${agent.sessionId} (${history.length} messages).`);
      store.transcript.notesInThinking = agent.model().thinking?.notesInThinking === true;
      store.transcript.replay(history.slice(-REPLAY_MESSAGES));
    }
    store.transcript.note(
      "dim",
      `keel · ${store.status.model} · session ${agent.sessionId.slice(0, 8)} · ${agent.cwd}  (/help for commands)`,
    );
    for (const d of agent.diagnostics()) {
      const who = d.extensionId === "kernel" ? "" : `${d.extensionId}: `;
      store.transcript.note(d.level === "info" ? "dim" : d.level, `${who}${d.message}`);
    }
    const names = new Set(agent.commands().map((c) => c.name));
    this.commands = [...agent.commands(), ...TUI_COMMANDS.filter((c) => !names.has(c.name))];
    store.publish();
  }

  /** Closes the current agent and opens another (/new, /resume, after /trust). */
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
    this.store.statuses.clear();
    this.store.widgets.clear();
    this.store.dismissDialogs();
    await agent?.close({ reason });
  }

  /** Re-reads the model and context use (after a run, a turn, or a command such as /model). */
  refresh(): void {
    if (!this.agent) return;
    this.store.status = {
      ...this.store.status,
      model: this.kernel.modelRef(this.agent.model()),
      contextPercent: this.agent.contextUsage().percent,
    };
  }

  private onEvent(event: CodingAgentEvent): void {
    const { store } = this;
    switch (event.type) {
      case "message_end":
        if (event.message.role === "assistant") this.count(event.message.usage);
        else if (event.message.role === "user") this.dequeue(event.message);
        break;
      case "agent_event":
        // A child agent's usage is part of the session's totals, so of the status line's too.
        if (event.event.type === "message_end" && event.event.message.role === "assistant")
          this.count(event.event.message.usage);
        break;
      case "run_start":
        // Also a run nobody typed: a notice woke the session (a background agent finished).
        store.running = true;
        break;
      case "turn_end":
        this.refresh();
        break;
      case "run_end":
        store.running = false;
        store.queued = [];
        store.dismissDialogs("approvals");
        this.refresh();
        if (event.summary.unsent.length > 0) {
          // Messages the run never delivered go back to the prompt rather than vanish.
          const before = store.editor.text ? `${store.editor.text}\n` : "";
          store.editor = editorWith(before + event.summary.unsent.join("\n"));
          store.transcript.note("dim", "Queued messages were not sent; they are back in the prompt.");
        }
        break;
      case "status":
        if (event.text === undefined) store.statuses.delete(event.key);
        else store.statuses.set(event.key, event.text);
        break;
      case "widget":
        if (event.lines === undefined) store.widgets.delete(event.key);
        else store.widgets.set(event.key, event.lines);
        break;
      default:
        break;
    }
    if (event.type === "message_start" && event.message.role === "assistant")
      store.transcript.notesInThinking = this.agent?.model().thinking?.notesInThinking === true;
    if (event.type === "debug" && !store.showDebug) return;
    const change = store.transcript.apply(event);
    store.changed(event.type === "status" || event.type === "widget" ? "structural" : change);
  }

  private count(u: Usage): void {
    this.store.status = {
      ...this.store.status,
      tokensIn: this.store.status.tokensIn + u.input + u.cacheRead + u.cacheWrite,
      tokensOut: this.store.status.tokensOut + u.output,
      cost: this.store.status.cost + u.cost.total,
    };
  }

  private dequeue(message: Message): void {
    const text = typeof message.content === "string" ? message.content : "";
    const index = this.store.queued.findIndex((q) => q.text === text);
    if (index !== -1) this.store.queued = this.store.queued.filter((_, i) => i !== index);
  }

  /** Enter: a slash command, a new prompt, or (mid-run) steering. */
  submit(text: string, kind: "steer" | "followUp" = "steer"): void {
    const trimmed = text.trim();
    if (!trimmed || !this.agent) return;
    if (trimmed.startsWith("/") && !trimmed.startsWith("//")) {
      void runSlash(this, trimmed);
      return;
    }
    if (this.agent.isRunning || this.store.running) {
      if (kind === "steer") this.agent.steer(trimmed);
      else this.agent.followUp(trimmed);
      this.store.queued = [...this.store.queued, { kind, text: trimmed }];
      this.store.publish();
      return;
    }
    void this.run(trimmed);
  }

  run(prompt: string): Promise<void> {
    const run = this.runPrompt(prompt).finally(() => {
      if (this.current === run) this.current = undefined;
    });
    this.current = run;
    return run;
  }

  private async runPrompt(prompt: string): Promise<void> {
    const agent = this.agent;
    if (!agent) return;
    this.interruptedRun = false;
    this.store.running = true;
    this.store.publish();
    const result = await agent.prompt(prompt);
    if (agent !== this.agent) return;
    this.store.running = false;
    if (result.isErr()) {
      this.store.transcript.note("error", result.error.message);
      const hint = refusalHint(result.error, agent.sessionId);
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
