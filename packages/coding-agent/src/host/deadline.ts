// Runs extension code with a deadline and an AbortSignal that fires when the deadline passes (or
// the caller's signal aborts). Outcomes are values: the caller decides whether a failure blocks
// (policy hooks) or is reported (observers).
import { err, ok, type Result } from "neverthrow";
import { errnoMessage } from "../fs/errno.js";

/** The extension code threw, or did not finish before the deadline. */
export interface DeadlineError {
  type: "threw" | "timeout";
  message: string;
}

export type Settled<T> = Result<T, DeadlineError>;

export async function withDeadline<T>(
  work: (signal: AbortSignal) => T | Promise<T>,
  ms: number,
  parent?: AbortSignal,
): Promise<Settled<T>> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`deadline of ${ms} ms passed`));
      resolve(err({ type: "timeout", message: `did not finish within ${ms} ms` }));
    }, ms);
  });
  const run = (async (): Promise<Settled<T>> => {
    try {
      return ok(await work(controller.signal));
    } catch (e) {
      return err({ type: "threw", message: errnoMessage(e) });
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
  }
}
