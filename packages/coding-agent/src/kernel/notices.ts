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
  private pending: { source: string; text: string; wake: boolean }[] = [];
  private flushing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: () => Session,
    private readonly report: (message: string) => void,
  ) {}

  add(source: string, text: string, wake = false): void {
    if (text.trim()) this.pending.push({ source, text, wake });
  }

  get size(): number {
    return this.pending.length;
  }

  /** Whether a waiting notice asked to start a run. */
  get wakes(): boolean {
    return this.pending.some((p) => p.wake);
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
      const appended = await this.session().appendEntry({
        type: "notice",
        source: next.source,
        message: noticeMessage(next.source, next.text),
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
