// The async event queue every stream uses: order, waiting consumers, the terminal event and result().
import { EventStream } from "@keel/ai";
import { describe, expect, it } from "vitest";

type Ev = { kind: "data"; n: number } | { kind: "done"; total: number };

function numbers(): EventStream<Ev, number> {
  return new EventStream<Ev, number>(
    (e) => e.kind === "done",
    (e) => (e.kind === "done" ? e.total : Number.NaN),
  );
}

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe("EventStream", () => {
  it("delivers events pushed before iteration starts, in order", async () => {
    const s = numbers();
    s.push({ kind: "data", n: 1 });
    s.push({ kind: "data", n: 2 });
    s.push({ kind: "done", total: 3 });
    expect(await drain(s)).toEqual([
      { kind: "data", n: 1 },
      { kind: "data", n: 2 },
      { kind: "done", total: 3 },
    ]);
  });

  it("delivers events pushed while a consumer is waiting", async () => {
    const s = numbers();
    const consumed = drain(s);
    await Promise.resolve();
    s.push({ kind: "data", n: 1 });
    await new Promise((r) => setImmediate(r));
    s.push({ kind: "data", n: 2 });
    s.push({ kind: "done", total: 3 });
    expect((await consumed).map((e) => e.kind)).toEqual(["data", "data", "done"]);
  });

  it("resolves result() with the terminal event's value and ignores later pushes", async () => {
    const s = numbers();
    s.push({ kind: "data", n: 1 });
    s.push({ kind: "done", total: 42 });
    s.push({ kind: "data", n: 99 });
    s.push({ kind: "done", total: 7 });
    expect(await s.result()).toBe(42);
    expect(await drain(s)).toHaveLength(2);
  });

  it("resolves result() without anyone iterating", async () => {
    const s = numbers();
    s.push({ kind: "done", total: 5 });
    await expect(s.result()).resolves.toBe(5);
  });

  it("lets a late consumer read everything after the stream finished", async () => {
    const s = numbers();
    s.push({ kind: "data", n: 1 });
    s.push({ kind: "done", total: 1 });
    await s.result();
    expect(await drain(s)).toEqual([
      { kind: "data", n: 1 },
      { kind: "done", total: 1 },
    ]);
    // Events are consumed once: a second pass finds the stream finished and empty.
    expect(await drain(s)).toEqual([]);
  });

  it("end() settles result() with its value, keeps queued events and releases waiting consumers", async () => {
    const queued = numbers();
    queued.push({ kind: "data", n: 1 });
    queued.end(10);
    expect(await queued.result()).toBe(10);
    expect(await drain(queued)).toEqual([{ kind: "data", n: 1 }]);

    const waiting = numbers();
    const consumed = drain(waiting);
    await Promise.resolve();
    waiting.end(0);
    expect(await consumed).toEqual([]);
    waiting.push({ kind: "data", n: 2 });
    waiting.end(1);
    expect(await waiting.result()).toBe(0);
  });

  it("ends every waiting consumer when the terminal event arrives", async () => {
    const s = numbers();
    const first = s[Symbol.asyncIterator]();
    const second = s[Symbol.asyncIterator]();
    const a = first.next();
    const b = second.next();
    s.push({ kind: "done", total: 0 });
    expect(await a).toEqual({ value: { kind: "done", total: 0 }, done: false });
    expect(await b).toEqual({ value: undefined, done: true });
  });
});
