// Runs extension code with a deadline. Outcomes are values: the caller decides whether a
// failure blocks (policy hooks) or is reported (observers).

export type Settled<T> = { ok: true; value: T } | { ok: false; reason: "threw" | "timeout"; message: string };

export async function withDeadline<T>(work: () => T | Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: "timeout", message: `did not finish within ${ms} ms` }),
      ms,
    );
  });
  const run = (async (): Promise<Settled<T>> => {
    try {
      return { ok: true, value: await work() };
    } catch (e) {
      return { ok: false, reason: "threw", message: e instanceof Error ? e.message : String(e) };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
