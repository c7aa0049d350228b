// The stateful face of the loop: history, configuration, steering/follow-up queues, listeners
// and abort. One run at a time; everything it reports is a value, never a throw.
import type { Message, UserMessage } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import type { AgentLoopConfig } from "./config.js";
import type { AgentError, AgentEvent, AgentEventListener, AgentInput, RunResult } from "./events.js";
import { type MessageQueues, runAgentLoop } from "./loop.js";
import { describe } from "./results.js";

export interface AgentOptions extends AgentLoopConfig {
  /** Initial history (e.g. folded from a session journal). */
  messages?: Message[];
  /**
   * Told when a listener throws (or its promise rejects); the run goes on either way.
   * Default: one process warning per failing listener.
   */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
}

export interface PromptOptions {
  /** Aborts the run like `abort()`. */
  signal?: AbortSignal;
}

interface ActiveRun {
  controller: AbortController;
  steering: Message[];
  followUp: Message[];
  /** False once the loop has closed the queues: later messages would never be delivered. */
  accepting: boolean;
}

export class Agent {
  private readonly settings: AgentLoopConfig;
  /** Shared with the running loop, which appends to it and reads it before every request. */
  private readonly history: { messages: Message[] };
  private readonly listeners = new Set<AgentEventListener>();
  private readonly warned = new WeakSet<AgentEventListener>();
  private readonly onListenerError: AgentOptions["onListenerError"];
  private active: ActiveRun | undefined;

  constructor(options: AgentOptions) {
    const { messages, onListenerError, ...settings } = options;
    this.settings = settings;
    this.history = { messages: [...(messages ?? [])] };
    this.onListenerError = onListenerError;
  }

  /** The history. Read-only: change it with replaceMessages(). */
  get messages(): readonly Message[] {
    return this.history.messages;
  }

  /**
   * Replaces the history (the host rebuilt it after compaction or rewind). During a run the next
   * model request uses it, and the run keeps appending to it.
   */
  replaceMessages(messages: readonly Message[]): void {
    this.history.messages = [...messages];
  }

  get config(): Readonly<AgentLoopConfig> {
    return this.settings;
  }

  /** Changes the configuration; a running loop picks it up at its next turn. */
  configure(patch: Partial<AgentLoopConfig>): void {
    Object.assign(this.settings, patch);
  }

  get isRunning(): boolean {
    return this.active !== undefined;
  }

  /** Starts a run. `[]` continues from the current history as it is. */
  async prompt(
    input: AgentInput | Message[],
    options: PromptOptions = {},
  ): Promise<Result<RunResult, AgentError>> {
    if (this.active) {
      return err({
        type: "busy",
        message:
          "The agent is already running: steer() or followUp() the current run, or wait for it to end.",
      });
    }
    const run: ActiveRun = { controller: new AbortController(), steering: [], followUp: [], accepting: true };
    this.active = run;
    const external = options.signal;
    const onExternalAbort = (): void => run.controller.abort(external?.reason);
    if (external?.aborted) run.controller.abort(external.reason);
    else external?.addEventListener("abort", onExternalAbort, { once: true });

    const queues: MessageQueues = {
      takeSteering: () => run.steering.splice(0),
      takeFollowUp: () => run.followUp.splice(0),
      close: () => {
        run.accepting = false;
        return [...run.steering.splice(0), ...run.followUp.splice(0)];
      },
    };
    try {
      const result = await runAgentLoop(
        Array.isArray(input) ? input : [toUserMessage(input)],
        this.settings,
        {
          history: this.history,
          signal: run.controller.signal,
          queues,
          emit: (event) => this.dispatch(run, event),
        },
      );
      return ok(result);
    } finally {
      external?.removeEventListener("abort", onExternalAbort);
      if (this.active === run) this.active = undefined;
    }
  }

  /** Queues a message for the model after the current tool batch (before its next request). */
  steer(message: AgentInput): Result<void, AgentError> {
    return this.enqueue("steering", message);
  }

  /** Queues a message for when the model would otherwise stop. */
  followUp(message: AgentInput): Result<void, AgentError> {
    return this.enqueue("followUp", message);
  }

  /** Aborts the current run (the provider request, every running tool); no-op when idle. */
  abort(): void {
    this.active?.controller.abort();
  }

  subscribe(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private enqueue(queue: "steering" | "followUp", input: AgentInput): Result<void, AgentError> {
    const run = this.active;
    if (!run?.accepting) {
      return err({
        type: "not_running",
        message: "No run is in progress to take this message: start one with prompt().",
      });
    }
    run[queue].push(toUserMessage(input));
    return ok(undefined);
  }

  private dispatch(run: ActiveRun, event: AgentEvent): void {
    // Idle before agent_end is heard, so a listener may start the next run from it.
    if (event.type === "agent_end" && this.active === run) this.active = undefined;
    for (const listener of [...this.listeners]) {
      try {
        const returned = listener(event);
        if (returned instanceof Promise)
          returned.catch((error: unknown) => this.reportListenerError(listener, error, event));
      } catch (error) {
        this.reportListenerError(listener, error, event);
      }
    }
  }

  private reportListenerError(listener: AgentEventListener, error: unknown, event: AgentEvent): void {
    let reporterError: unknown;
    if (this.onListenerError) {
      try {
        this.onListenerError(error, event);
        return;
      } catch (e) {
        // The reporter failed too: fall back to the default warning, saying both.
        reporterError = e;
      }
    }
    if (this.warned.has(listener)) return;
    this.warned.add(listener);
    const also =
      reporterError === undefined ? "" : ` (and onListenerError threw on it: ${describe(reporterError)})`;
    process.emitWarning(`@keel/agent: an event listener threw on ${event.type}: ${describe(error)}${also}`);
  }
}

function toUserMessage(input: AgentInput): UserMessage {
  return typeof input === "string" ? { role: "user", content: input, timestamp: Date.now() } : input;
}
