// A pause that an abort cuts short: polling a server at its interval, waiting up to a limit for a
// run to end. It never rejects, so a caller races it against the awaited thing and checks the signal.

/** Resolves after `ms`, or as soon as `signal` aborts (at once if it already has); the timer is cleared either way. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
