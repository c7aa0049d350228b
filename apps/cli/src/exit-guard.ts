// Every way keel is made to stop ends the same way, within about a second: Ctrl+C (SIGINT),
// SIGTERM, the terminal closing (SIGHUP), or a run that can never end (nothing left that
// could settle it). The run is aborted, the session saved and unlocked, the processes its
// commands started ended, and keel exits with the documented code. Imports no kernel: the TUI
// bundle uses it too and gets the kernel's functions handed in.
import { EXIT } from "./exit-codes.js";
import { exitProcess } from "./exit-process.js";

export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

export const SIGNAL_EXIT: Record<StopSignal, number> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
  SIGHUP: EXIT.hangup,
};

const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** After the first signal, how long the run gets to end cleanly before keel stops it itself. */
const GRACE_MS = 600;
/** How long a forced exit waits for the session to be saved and unlocked. */
const CLOSE_MS = 300;

export interface ExitGuardOptions {
  /** The first signal: stop the work (abort the run); the normal path then finishes and exits. */
  onStop(signal: StopSignal): void;
  /** Saves and unlocks the session (closing the agent); awaited at most CLOSE_MS when forced. */
  close(): Promise<void>;
  /** Ends, at once, every process the run's commands still have (the kernel's killAllCommandTrees). */
  killProcesses(): void;
  /** Told once, before a forced exit, why keel is exiting on its own. */
  note?(message: string): void;
  /**
   * Interactive mode: the terminal itself ending (stdin reaching its end or failing with EIO,
   * which is how a closed terminal shows when no SIGHUP reaches keel) counts as SIGHUP.
   */
  watchTerminal?: boolean;
  graceMs?: number;
}

export interface ExitGuard {
  /** The signal that stopped keel, if one did. */
  signal(): StopSignal | undefined;
  dispose(): void;
}

/**
 * The terminal is gone after SIGHUP: writing to it fails (EIO) and reading it returns errors,
 * so keel stops doing either with it and finishes quietly.
 */
function detachFromTerminal(): void {
  // Only the terminal is gone: output redirected to a file or a pipe still goes there.
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.isTTY) continue;
    stream.on("error", () => {});
    // Writes succeed at once, so whoever waits for one (a flush before exit) goes on.
    stream.write = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") process.nextTick(done as () => void);
      return true;
    }) as typeof stream.write;
  }
  if (process.stdin.isTTY) {
    process.stdin.on("error", () => {});
    process.stdin.pause();
  }
}

/**
 * Set while a guard is on (across keel's bundles, which share no module): the bin's last-resort
 * beforeExit handler then leaves the empty event loop to the guard.
 */
export const EXIT_GUARDED = Symbol.for("keel.exitGuarded");

export function guardExits(options: ExitGuardOptions): ExitGuard {
  let received: StopSignal | undefined;
  let forcing = false;
  let timer: NodeJS.Timeout | undefined;

  const force = async (code: number, why?: string) => {
    if (forcing) return;
    forcing = true;
    if (why) options.note?.(why);
    // Whatever the run still has running must not outlive keel, however it escaped its group.
    options.killProcesses();
    let closeTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      options.close().catch(() => {}),
      new Promise<void>((resolve) => {
        closeTimer = setTimeout(resolve, CLOSE_MS);
      }),
    ]);
    clearTimeout(closeTimer);
    exitProcess(code);
  };

  const handlers = new Map<StopSignal, () => void>();
  for (const signal of SIGNALS) {
    const handler = () => {
      if (signal === "SIGHUP") detachFromTerminal();
      // A closed terminal may show as its end and then as SIGHUP: one hang-up, not two.
      if (received === "SIGHUP" && signal === "SIGHUP") return;
      if (received) {
        // A second signal: the user insists.
        void force(SIGNAL_EXIT[received]);
        return;
      }
      received = signal;
      options.onStop(signal);
      timer = setTimeout(() => void force(SIGNAL_EXIT[signal]), options.graceMs ?? GRACE_MS);
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }

  const hangup = () => handlers.get("SIGHUP")?.();
  if (options.watchTerminal) {
    process.stdin.on("end", hangup);
    process.stdin.on("error", hangup);
  }

  // The event loop ran dry while the run was still pending: a tool or hook is waiting on
  // something that can never happen. Without this, Node would exit 0 with the lock left.
  const onBeforeExit = () => {
    void force(
      received ? SIGNAL_EXIT[received] : EXIT.failed,
      received
        ? undefined
        : "the run stopped making progress: a tool or extension is waiting on something that can never happen. The session was saved; continue it with keel -c.",
    );
  };
  process.on("beforeExit", onBeforeExit);
  (globalThis as Record<symbol, unknown>)[EXIT_GUARDED] = true;

  return {
    signal: () => received,
    dispose() {
      clearTimeout(timer);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      process.off("beforeExit", onBeforeExit);
      (globalThis as Record<symbol, unknown>)[EXIT_GUARDED] = false;
      process.stdin.off("end", hangup);
      process.stdin.off("error", hangup);
    },
  };
}
