// One small async queue for every sequence of events that ends in a value: providers, the
// agent loop, proxies and tests all use it.

export class EventStream<T, R> implements AsyncIterable<T> {
  // Pending events live in queue[head..]; a read index avoids shifting a long backlog.
  private queue: T[] = [];
  private head = 0;
  // A consumer waiting for the next event; `waiting` holds more only if next() is called concurrently.
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private readonly waiting: ((r: IteratorResult<T>) => void)[] = [];
  private ended = false;
  private readonly final: Promise<R>;
  private resolveFinal!: (value: R) => void;
  // Created once: a per-call closure in next() is measurable on streams of 100k+ events.
  private readonly wait = (resolve: (r: IteratorResult<T>) => void): void => {
    if (this.waiter === undefined) this.waiter = resolve;
    else this.waiting.push(resolve);
  };

  constructor(
    private readonly isTerminal: (event: T) => boolean,
    private readonly extract: (event: T) => R,
  ) {
    this.final = new Promise<R>((resolve) => {
      this.resolveFinal = resolve;
    });
  }

  /** Adds an event; a terminal event also settles `result()` and closes the stream. */
  push(event: T): void {
    if (this.ended) return;
    if (this.isTerminal(event)) {
      this.ended = true;
      this.resolveFinal(this.extract(event));
    }
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = this.waiting.length === 0 ? undefined : this.waiting.shift();
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
    if (this.ended) this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.waiter ? [this.waiter, ...this.waiting.splice(0)] : this.waiting.splice(0);
    this.waiter = undefined;
    for (const w of waiters) w({ value: undefined, done: true });
  }

  /** Closes without a terminal event (for streams whose value arrives another way). */
  end(value: R): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveFinal(value);
    this.releaseWaiters();
  }

  result(): Promise<R> {
    return this.final;
  }

  private take(): IteratorResult<T> | undefined {
    if (this.head === this.queue.length) return undefined;
    const value = this.queue[this.head] as T;
    this.queue[this.head++] = undefined as T; // let the event be collected once read
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    return { value, done: false };
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const next = this.take();
        if (next) return Promise.resolve(next);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise(this.wait);
      },
    };
  }
}
