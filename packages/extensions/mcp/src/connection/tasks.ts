// tools/call as a task (the 2025-11-25 spec's task augmentation), for the tools that require it:
// the call creates the task, tasks/get is polled at the server's interval (each answer keeps the
// call's idle timer from running out) and its status passed on, tasks/result fetches the result —
// early when the task asks for input, since the server's questions come on that request — and a
// call that is cancelled (or times out) cancels its task with tasks/cancel.
import { sleep } from "@keel/extension-sdk/node";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { NO_SDK_TIMEOUT } from "./calls.js";

/** How long a task Keel creates is kept by the server after it ends (ms). */
const TASK_TTL_MS = 10 * 60_000;
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 10_000;
const DEFAULT_POLL_MS = 1_000;
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** A task's state as the caller is told of it. */
export interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
}

export interface TaskCallOptions {
  signal: AbortSignal;
  /** An answer came (the call is alive). */
  touch(): void;
  /** How long one poll may take. */
  requestTimeoutMs: number;
  onProgress?(progress: Progress): void;
  onStatus?(task: TaskState): void;
}

export async function callAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: TaskCallOptions,
) {
  const { signal } = options;
  const poll = { timeout: options.requestTimeoutMs, signal };
  let taskId: string | undefined;
  try {
    const created = await client.request(
      { method: "tools/call", params: { name, arguments: args } },
      CreateTaskResultSchema,
      {
        ...poll,
        task: { ttl: TASK_TTL_MS },
        // The progress token stays valid for the task's life: its notifications keep coming.
        onprogress: (progress) => {
          options.touch();
          options.onProgress?.(progress);
        },
      },
    );
    options.touch();
    let task: TaskState & { pollInterval?: number } = created.task;
    taskId = task.taskId;
    const told = (state: TaskState) => `${state.status}\u0000${state.statusMessage ?? ""}`;
    let last = told(task);
    options.onStatus?.(task);
    let result: ReturnType<typeof fetchResult> | undefined;
    const fetchResult = () =>
      client.request({ method: "tasks/result", params: { taskId: taskId! } }, CallToolResultSchema, {
        timeout: NO_SDK_TIMEOUT,
        signal,
      });
    for (;;) {
      if (TERMINAL.has(task.status)) return await (result ?? fetchResult());
      // Input required: the server's questions come on tasks/result, which then waits for the end.
      if (task.status === "input_required" && !result) {
        result = fetchResult();
        result.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
      }
      const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS));
      const ended = result
        ? await Promise.race([
            result.then((value) => ({ value })),
            sleep(interval, signal).then(() => undefined),
          ])
        : await sleep(interval, signal).then(() => undefined);
      if (ended) return ended.value;
      signal.throwIfAborted();
      task = await client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema, poll);
      options.touch();
      if (told(task) !== last) {
        last = told(task);
        options.onStatus?.(task);
      }
    }
  } catch (error) {
    // Cancelled or timed out: the task is cancelled too (best effort; the server may be gone).
    if (signal.aborted && taskId !== undefined)
      void client
        .request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema, { timeout: 5_000 })
        .catch(() => {});
    throw error;
  }
}
