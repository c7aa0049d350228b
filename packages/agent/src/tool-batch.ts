// Runs the tool calls of one assistant message: validation, the before/after seams, execution
// (contiguous parallel calls together, sequential ones alone) and publication in call order.
import { type ToolCall, type ToolResultMessage, validateToolArguments } from "@keel/ai";
import type { AfterToolCall, BeforeToolCall, ToolCallInfo } from "./config.js";
import type { AgentEvent } from "./events.js";
import {
  abortGraceExpiredResult,
  checkResult,
  describe,
  errorResult,
  NOT_STARTED_TEXT,
  unparsedResult,
} from "./results.js";
import type { AgentTool, AgentToolResult } from "./types.js";

export interface ToolBatchEnv {
  turn: number;
  tools: readonly AgentTool[];
  signal: AbortSignal;
  abortGraceMs: number;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  emit(event: AgentEvent): void;
  /** Appends a message to the history and announces it (message_start / message_end). */
  deliver(message: ToolResultMessage): void;
}

interface Outcome {
  call: ToolCall;
  result: AgentToolResult;
}

/** A started call. Wrapped so that awaiting the start does not also await the end. */
interface Started {
  outcome: Promise<Outcome>;
}

/**
 * Every call gets exactly one tool_execution_start, one tool_execution_end and one toolResult
 * message, whatever happens to it, so the history stays valid even after an abort.
 */
export async function runToolBatch(
  calls: readonly ToolCall[],
  env: ToolBatchEnv,
): Promise<ToolResultMessage[]> {
  const published: ToolResultMessage[] = [];
  for (const group of groupByExecutionMode(calls, env.tools)) {
    // Calls are prepared one at a time in call order (a beforeToolCall may ask the user), and each
    // starts as soon as it is prepared; results are then published strictly in call order.
    const started: Started[] = [];
    for (const call of group) started.push(await safeStart(call, env));
    for (const { outcome } of started) published.push(publish(await outcome, env));
  }
  return published;
}

function groupByExecutionMode(calls: readonly ToolCall[], tools: readonly AgentTool[]): ToolCall[][] {
  const groups: ToolCall[][] = [];
  let parallel: ToolCall[] | undefined;
  for (const call of calls) {
    if (findTool(tools, call.name)?.executionMode === "sequential") {
      groups.push([call]);
      parallel = undefined;
    } else {
      if (!parallel) {
        parallel = [];
        groups.push(parallel);
      }
      parallel.push(call);
    }
  }
  return groups;
}

function findTool(tools: readonly AgentTool[], name: string): AgentTool | undefined {
  return tools.find((t) => t.name === name);
}

/** Whatever goes wrong preparing one call (a schema the validator cannot compile…) fails that call only. */
async function safeStart(call: ToolCall, env: ToolBatchEnv): Promise<Started> {
  try {
    return await start(call, env);
  } catch (error) {
    announce(call, call.arguments, env);
    const result = errorResult(`Not run: ${call.name} could not be prepared: ${describe(error)}`);
    return { outcome: Promise.resolve({ call, result }) };
  }
}

async function start(call: ToolCall, env: ToolBatchEnv): Promise<Started> {
  const resolved = (args: Record<string, unknown>, result: AgentToolResult): Started => {
    announce(call, args, env);
    return { outcome: Promise.resolve({ call: { ...call, arguments: args }, result }) };
  };

  const tool = findTool(env.tools, call.name);
  if (!tool) {
    const names = env.tools.map((t) => t.name).join(", ") || "none";
    return resolved(
      call.arguments,
      errorResult(`Tool "${call.name}" does not exist. Available tools: ${names}.`),
    );
  }
  if (env.signal.aborted) return resolved(call.arguments, errorResult(NOT_STARTED_TEXT));
  // Arguments that never parsed: this call alone fails, and the model is told how to redo it.
  if (call.argumentsError !== undefined) return resolved(call.arguments, unparsedResult(call));

  const checked = validateToolArguments(tool, call.arguments);
  if (checked.isErr()) {
    const text = `Invalid arguments for tool ${checked.error.message}. Fix them to match the tool's schema and call it again.`;
    return resolved(call.arguments, errorResult(text));
  }
  // Tool parameters are object schemas, so a value that passed the check is a record.
  let args = checked.value as Record<string, unknown>;
  const info: ToolCallInfo = { turn: env.turn, tool, signal: env.signal };

  if (env.beforeToolCall) {
    let decision: unknown;
    try {
      // An abort must not wait for a pending decision (e.g. an approval nobody answers).
      const before = env.beforeToolCall;
      const pending = Promise.resolve().then(() => before({ ...call, arguments: args }, info));
      const settled = await withAbortGrace(pending, env.signal, 0);
      if (settled.timedOut) return resolved(args, errorResult(NOT_STARTED_TEXT));
      decision = settled.value;
    } catch (error) {
      return resolved(
        args,
        errorResult(`Not run: beforeToolCall failed for ${tool.name}: ${describe(error)}`),
      );
    }
    if (!isDecision(decision)) {
      return resolved(
        args,
        errorResult(`Not run: beforeToolCall returned an invalid decision for ${tool.name}.`),
      );
    }
    if (decision.action === "block") return resolved(args, errorResult(decision.reason));
    if (decision.args !== undefined) {
      const rechecked = validateToolArguments(tool, decision.args);
      if (rechecked.isErr()) {
        const text = `Not run: the arguments were rewritten before running and are no longer valid for ${rechecked.error.message}`;
        return resolved(decision.args, errorResult(text));
      }
      args = rechecked.value as Record<string, unknown>;
    }
    if (env.signal.aborted) return resolved(args, errorResult(NOT_STARTED_TEXT));
  }

  announce(call, args, env);
  // A listener of tool_execution_start may have aborted the run.
  if (env.signal.aborted)
    return {
      outcome: Promise.resolve({ call: { ...call, arguments: args }, result: errorResult(NOT_STARTED_TEXT) }),
    };
  return { outcome: execute(tool, { ...call, arguments: args }, info, env) };
}

function announce(call: ToolCall, args: Record<string, unknown>, env: ToolBatchEnv): void {
  env.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args });
}

async function execute(
  tool: AgentTool,
  call: ToolCall,
  info: ToolCallInfo,
  env: ToolBatchEnv,
): Promise<Outcome> {
  let finished = false;
  const onUpdate = (partial: AgentToolResult): void => {
    if (finished) return;
    env.emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, partial });
  };
  let result: AgentToolResult;
  try {
    // Promise.resolve().then turns a synchronous throw inside execute into a rejection.
    const running = Promise.resolve().then(() =>
      tool.execute(call.arguments, { signal: env.signal, toolCallId: call.id, onUpdate }),
    );
    const settled = await withAbortGrace(running, env.signal, env.abortGraceMs);
    result = settled.timedOut
      ? abortGraceExpiredResult(tool.name, env.abortGraceMs)
      : checkResult(settled.value, `Tool ${tool.name}`);
  } catch (error) {
    result = errorResult(`Tool ${tool.name} failed: ${describe(error)}`);
  }
  finished = true;

  if (env.afterToolCall) {
    try {
      const patched = await env.afterToolCall(call, result, info);
      if (patched !== undefined) result = checkResult(patched, `afterToolCall for ${tool.name}`);
    } catch (error) {
      // Fail closed: afterToolCall may exist to redact, so the unpatched output is not sent.
      result = errorResult(
        `${tool.name} ran, but its result was withheld: afterToolCall failed: ${describe(error)}`,
      );
    }
  }
  return { call, result };
}

/** Waits for the work; once the signal aborts, waits at most `graceMs` more. */
function withAbortGrace<T>(
  work: Promise<T>,
  signal: AbortSignal,
  graceMs: number,
): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => resolve({ timedOut: true }), graceMs);
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        cleanup();
        resolve({ timedOut: false, value });
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}

function publish({ call, result }: Outcome, env: ToolBatchEnv): ToolResultMessage {
  const isError = result.isError === true;
  env.emit({ type: "tool_execution_end", toolCallId: call.id, toolName: call.name, result, isError });
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError,
    timestamp: Date.now(),
  };
  if (result.details !== undefined) message.details = result.details;
  env.deliver(message);
  return message;
}

function isDecision(
  value: unknown,
): value is { action: "continue"; args?: Record<string, unknown> } | { action: "block"; reason: string } {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { action?: unknown; args?: unknown; reason?: unknown };
  if (v.action === "block") return typeof v.reason === "string";
  if (v.action !== "continue") return false;
  return v.args === undefined || (typeof v.args === "object" && v.args !== null && !Array.isArray(v.args));
}
