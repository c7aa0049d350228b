// Reconnect delays: exponential from `initialMs`, capped at `maxMs`, with up to 20% jitter so
// several Keel processes do not hammer a restarted server in step. `maxAttempts` ends a streak.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Attempts in one streak before the connection is left "failed" (the next call tries again). */
  maxAttempts: number;
  /** 0..1 of the delay added at random; 0 in tests that count delays. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialMs: 500,
  maxMs: 30_000,
  factor: 2,
  maxAttempts: 8,
  jitter: 0.2,
};

/** The delay before reconnect attempt `attempt` (1-based), or undefined once the streak is over. */
export function backoffDelay(options: BackoffOptions, attempt: number, random: () => number = Math.random) {
  if (attempt > options.maxAttempts) return undefined;
  const base = Math.min(options.maxMs, options.initialMs * options.factor ** (attempt - 1));
  return Math.round(base * (1 + options.jitter * random()));
}
