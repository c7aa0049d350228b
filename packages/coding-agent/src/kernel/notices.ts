// Persisted notices: messages extensions leave for the model (a background agent finished). They
// wait here until the next request (or are journaled at once when no run is going on), then become
// `notice` entries — part of the context from there on, never an edit of what was sent.
import type { UserMessage } from "@keel/ai";
import type { Session } from "@keel/session";

export const NOTICE_OPEN = (source: string) => `<notice from="${source}">`;
export const NOTICE_CLOSE = "</notice>";

export function noticeMessage(source: string, text: string): UserMessage {
  return {
    role: "user",
    content: `${NOTICE_OPEN(source)}\n${text.trim()}\n${NOTICE_CLOSE}`,
    timestamp: Date.now(),
  };
}

export class NoticeQueue {
  private pending: { source: string; text: string; wake: boolean; key?: string }[] = [];
  private flushing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: () => Session,
    private readonly report: (message: string) => void,
  ) {}

  /** Queues a notice; false when it is empty or its key is already waiting or on the branch. */
  add(source: string, text: string, options: { wake?: boolean; key?: string | undefined } = {}): boolean {
    if (!text.trim()) return false;
    const { key } = options;
    if (key !== undefined && (this.waiting(source, key) || this.delivered(source, key))) return false;
    this.pending.push({ source, text, wake: options.wake === true, ...(key !== undefined ? { key } : {}) });
    return true;
  }

  get size(): number {
    return this.pending.length;
  }

  /** Whether a waiting notice asked to start a run. */
  get wakes(): boolean {
    return this.pending.some((p) => p.wake);
  }

  private waiting(source: string, key: string): boolean {
    return this.pending.some((p) => p.source === source && p.key === key);
  }

  private delivered(source: string, key: string): boolean {
    return this.session().fold().noticeKeys[source]?.includes(key) === true;
  }

  /**
   * Journals every waiting notice, in order; one that cannot be journaled stays queued. Flushes
   * run one after another: two at once would both write the head of the queue, then each drop one.
   */
  flush(): Promise<number> {
    const next = this.flushing.then(() => this.drain());
    this.flushing = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async drain(): Promise<number> {
    let written = 0;
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      // The head may have moved since it was queued (a rewind): the key is judged where it lands.
      if (next.key !== undefined && this.delivered(next.source, next.key)) {
        this.pending.shift();
        continue;
      }
      const appended = await this.session().appendEntry({
        type: "notice",
        source: next.source,
        message: noticeMessage(next.source, next.text),
        ...(next.key !== undefined ? { key: next.key } : {}),
      });
      if (appended.isErr()) {
        this.report(`Could not journal a notice from ${next.source}: ${appended.error.message}`);
        return written;
      }
      this.pending.shift();
      written++;
    }
    return written;
  }
}
