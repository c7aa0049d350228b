// The agent loop: a turn is one model response plus the tool batch it asked for. It repeats while
// the model asks for tools or queued messages wait, and always ends in exactly one RunResult.

import { setMaxListeners } from "node:events";
import {
  type AssistantMessage,
  addUsage,
  type Context,
  EventStream,
  emptyUsage,
  type Message,
  stream,
  type Usage,
} from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import type { AgentLoopConfig, AgentStreamFn } from "./config.js";
import type { AgentEvent, AgentRunError, AgentStopReason, RunResult } from "./events.js";
import { describe } from "./results.js";
import { runToolBatch } from "./tool-batch.js";

/** Where the loop takes steering and follow-up messages from (the Agent owns the queues). */
export interface MessageQueues {
  /** Removes and returns the steering messages queued so far. */
  takeSteering(): Message[];
  /** Removes and returns the follow-up messages queued so far. */
  takeFollowUp(): Message[];
  /** The run is ending: returns whatever is still queued and accepts nothing more. */
  close(): Message[];
}

export interface AgentLoopRun {
  /**
   * The history. The loop appends each new message to `history.messages`; a host may replace the
   * array while the run goes on (after compaction), and the next request uses the new one.
   */
  history: { messages: Message[] };
  signal?: AbortSignal;
  queues?: MessageQueues;
  /** Receives every event, synchronously and in order. Should not throw (a throw only loses that event). */
  emit?: (event: AgentEvent) => void;
}

const DEFAULT_ABORT_GRACE_MS = 5000;

const noQueues: MessageQueues = { takeSteering: () => [], takeFollowUp: () => [], close: () => [] };

/**
 * Runs the loop until the model stops with nothing queued, max turns, an error or an abort.
 * Never rejects. `config` is read again at every turn, so a host may change model, tools or
 * system prompt between turns.
 */
export async function runAgentLoop(
  input: readonly Message[],
  config: AgentLoopConfig,
  run: AgentLoopRun,
): Promise<RunResult> {
  // The loop's own signal: every parallel tool (and the tool's children) may listen to it at once,
  // which is no leak, so Node's 10-listener warning is lifted on it, not on the caller's signal.
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const signal = controller.signal;
  const onAbort = (): void => controller.abort(run.signal?.reason);
  if (run.signal?.aborted) onAbort();
  else run.signal?.addEventListener("abort", onAbort, { once: true });
  const queues = run.queues ?? noQueues;
  const emit = guardEmit(run.emit);
  const added: Message[] = [];
  const undelivered: Message[] = [];
  let usage: Usage = emptyUsage();
  let turns = 0;
  let ended: RunResult | undefined;

  const record = (message: Message): void => {
    run.history.messages.push(message);
    added.push(message);
    emit({ type: "message_end", message });
  };
  const deliver = (message: Message): void => {
    emit({ type: "message_start", message });
    record(message);
  };

  const finish = (stopReason: AgentStopReason, error?: AgentRunError): RunResult => {
    if (ended) return ended;
    const unsent = [...undelivered, ...safeClose(queues)];
    const result: RunResult = { stopReason, turns, usage, messages: added, unsent };
    if (error) result.error = error;
    ended = result;
    emit({ type: "agent_end", result });
    return result;
  };

  try {
    emit({ type: "agent_start" });
    let pending: Message[] = [...input];
    for (;;) {
      if (signal.aborted) {
        undelivered.push(...pending);
        return finish("aborted", abortedError());
      }
      if (config.maxTurns !== undefined && turns >= config.maxTurns) {
        undelivered.push(...pending);
        return finish("max_turns");
      }

      turns++;
      const turn = turns;
      emit({ type: "turn_start", turn });
      for (const message of pending) deliver(message);
      pending = [];

      const request = await prepareRequest(config, turn, run.history.messages, signal);
      if (request.isErr()) return finish("error", request.error);

      const streamed = await streamTurn(config, request.value, signal, emit);
      if (streamed.isErr()) return finish("error", streamed.error);
      const message = streamed.value;
      record(message);
      usage = addUsage(usage, message.usage);

      if (
        message.stopReason === "error" ||
        message.stopReason === "aborted" ||
        message.stopReason === "context_overflow"
      ) {
        // The failed message stays in the history (replay drops its half-made tool calls), so its
        // tool calls get no results.
        emit({ type: "turn_end", turn, message, toolResults: [] });
        return finish(
          message.stopReason,
          message.error ?? { type: "protocol", message: "The model call failed." },
        );
      }

      const calls = message.content.filter((c) => c.type === "toolCall");
      const toolResults =
        calls.length === 0
          ? []
          : await runToolBatch(calls, {
              turn,
              tools: config.tools ?? [],
              signal,
              abortGraceMs: config.toolAbortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
              beforeToolCall: config.beforeToolCall,
              afterToolCall: config.afterToolCall,
              emit,
              deliver,
            });
      emit({ type: "turn_end", turn, message, toolResults });

      if (signal.aborted) return finish("aborted", abortedError());
      // Steering waits for the whole batch: the model asked for these calls, and skipping them
      // would leave made-up results in the history. Abort is the way to stop a batch.
      pending = queues.takeSteering();
      if (calls.length > 0) continue;
      if (pending.length === 0) pending = queues.takeFollowUp();
      if (pending.length === 0) return finish(message.stopReason === "length" ? "length" : "stop");
    }
  } catch (error) {
    // Only a bug gets here (the loop guards every seam and tool): end the run, keep the history.
    return finish("error", { type: "internal", message: `The agent loop failed: ${describe(error)}` });
  } finally {
    run.signal?.removeEventListener("abort", onAbort);
  }
}

/** The loop as an event stream ending in its RunResult (for stream-json, proxies and tests). */
export function agentLoop(
  input: readonly Message[],
  config: AgentLoopConfig,
  run: Omit<AgentLoopRun, "emit">,
): EventStream<AgentEvent, RunResult> {
  const out = new EventStream<AgentEvent, RunResult>(
    (e) => e.type === "agent_end",
    (e) => (e.type === "agent_end" ? e.result : (undefined as never)),
  );
  void runAgentLoop(input, config, { ...run, emit: (e) => out.push(e) });
  return out;
}

/** A seam of the loop (prepareRequest, the stream function) threw or answered nonsense. */
type SeamError = Extract<AgentRunError, { type: "internal" }>;

async function prepareRequest(
  config: AgentLoopConfig,
  turn: number,
  history: readonly Message[],
  signal: AbortSignal,
): Promise<Result<Context, SeamError>> {
  const context: Context = { messages: [...history] };
  if (config.systemPrompt !== undefined) context.systemPrompt = config.systemPrompt;
  const tools = config.tools ?? [];
  if (tools.length > 0) {
    context.tools = tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
  }
  if (!config.prepareRequest) return ok(context);
  try {
    const prepared: unknown = await config.prepareRequest(context, { turn, signal });
    if (typeof prepared !== "object" || prepared === null || !Array.isArray((prepared as Context).messages)) {
      return err({
        type: "internal",
        message: "prepareRequest returned no context (expected an object with a messages array).",
      });
    }
    return ok(prepared as Context);
  } catch (error) {
    return err({ type: "internal", message: `prepareRequest failed: ${describe(error)}` });
  }
}

async function streamTurn(
  config: AgentLoopConfig,
  context: Context,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<Result<AssistantMessage, SeamError>> {
  const streamFn: AgentStreamFn = config.streamFn ?? stream;
  let partial: AssistantMessage | undefined;
  try {
    const events = streamFn(config.model, context, { ...config.streamOptions, signal });
    for await (const event of events) {
      if (event.type === "done" || event.type === "error") break;
      if (event.type === "start") {
        if (!partial) emit({ type: "message_start", message: event.partial });
        partial = event.partial;
        continue;
      }
      if ("partial" in event) partial = event.partial;
      if (partial) emit({ type: "message_update", message: partial, assistantEvent: event });
    }
    const message = await events.result();
    if (!partial) emit({ type: "message_start", message });
    return ok(message);
  } catch (error) {
    return err({ type: "internal", message: `The stream function failed: ${describe(error)}` });
  }
}

function guardEmit(emit: ((event: AgentEvent) => void) | undefined): (event: AgentEvent) => void {
  if (!emit) return () => {};
  let warned = false;
  return (event) => {
    try {
      emit(event);
    } catch (error) {
      // Once per run: an emit that throws on every event would otherwise flood stderr.
      if (warned) return;
      warned = true;
      process.emitWarning(
        `@keel/agent: the run's emit threw on ${event.type} (later throws in this run are not reported): ${describe(error)}`,
      );
    }
  };
}

function safeClose(queues: MessageQueues): Message[] {
  try {
    return queues.close();
  } catch (error) {
    process.emitWarning(
      `@keel/agent: closing the message queues failed, so RunResult.unsent may miss queued messages: ${describe(error)}`,
    );
    return [];
  }
}

function abortedError(): AgentRunError {
  return { type: "aborted", message: "The run was aborted." };
}
