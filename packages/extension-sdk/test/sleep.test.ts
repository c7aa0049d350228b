// The abortable sleep: the full pause, cut short by an abort (also one that came before), never a
// rejection, and no listener left on the signal afterwards.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleep } from "../src/node/index.js";

describe("sleep", () => {
  it("waits the whole time when nothing aborts, and leaves no listener behind", async () => {
    const signal = new AbortController().signal;
    const started = performance.now();
    await sleep(60, signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("resolves when the signal aborts, long before the time is up", async () => {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 20);
    await expect(sleep(30_000, controller.signal)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("resolves at once for a signal that aborted already", async () => {
    const started = performance.now();
    await sleep(30_000, AbortSignal.abort());
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
