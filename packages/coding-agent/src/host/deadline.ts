// Runs extension code with a deadline and an AbortSignal that fires when the deadline passes (or
// the caller's signal aborts). Outcomes are values: the caller decides whether a failure blocks
// (policy hooks) or is reported (observers).
import { errnoMessage } from "../fs/errno.js";

export type Settled<T> = { ok: true; value: T } | { ok: false; reason: "threw" | "timeout"; message: string };

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
      resolve({ ok: false, reason: "timeout", message: `did not finish within ${ms} ms` });
    }, ms);
  });
  const run = (async (): Promise<Settled<T>> => {
    try {
      return { ok: true, value: await work(controller.signal) };
    } catch (e) {
      return { ok: false, reason: "threw", message: errnoMessage(e) };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
  }
}
