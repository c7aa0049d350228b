// Coalesces streaming checkpoints: the kernel offers the growing partial message as often as
// it likes; at most one is written per interval, always the latest.
import type { AssistantMessage } from "@keel/protocol";

export interface CheckpointTiming {
  /** Minimum time between two written checkpoints. */
  intervalMs: number;
  now: () => number;
}

export class CheckpointCoalescer {
  private pending: AssistantMessage | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private lastBytes = 0;

  constructor(
    /** Writes the checkpoint; returns the bytes written (0 if nothing was written). */
    private readonly write: (message: AssistantMessage) => number,
    private readonly timing: CheckpointTiming,
  ) {}

  /**
   * Each checkpoint repeats the whole partial, so past 64 KB the interval grows with its size
   * (one second per 64 KB): the file then grows roughly linearly with the reply, not quadratically.
   */
  private interval(): number {
    const bySize = this.lastBytes > 65_536 ? (this.lastBytes / 65_536) * 1000 : 0;
    return Math.max(this.timing.intervalMs, bySize);
  }

  offer(message: AssistantMessage): void {
    this.pending = message;
    const wait = this.lastWrite + this.interval() - this.timing.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, wait);
      this.timer.unref?.();
    }
  }

  /** Drops the pending checkpoint: the message it belongs to has landed (or was abandoned). */
  cancel(): void {
    this.pending = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.lastWrite = Number.NEGATIVE_INFINITY;
    this.lastBytes = 0;
  }

  private flush(): void {
    const message = this.pending;
    if (message === null) return;
    this.pending = null;
    this.lastBytes = this.write(message);
    this.lastWrite = this.timing.now();
  }
}
