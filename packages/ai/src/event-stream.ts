// One small async queue for every sequence of events that ends in a value: providers, the
// agent loop, proxies and tests all use it.

export class EventStream<T, R> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private readonly waiting: ((r: IteratorResult<T>) => void)[] = [];
  private ended = false;
  private readonly final: Promise<R>;
  private resolveFinal!: (value: R) => void;

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
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.queue.push(event);
    if (this.ended) for (const w of this.waiting.splice(0)) w({ value: undefined, done: true });
  }

  /** Closes without a terminal event (for streams whose value arrives another way). */
  end(value: R): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveFinal(value);
    for (const w of this.waiting.splice(0)) w({ value: undefined, done: true });
  }

  result(): Promise<R> {
    return this.final;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event !== undefined) return Promise.resolve({ value: event, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
    };
  }
}
