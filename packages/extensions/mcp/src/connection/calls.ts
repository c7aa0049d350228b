// The tools/call traffic of one connection: each call's idle timer, kept here rather than by the
// SDK so that it stands still while the server waits on the user (an elicitation form, a sampling
// approval), and the questions the server has open, each withdrawn once no call it could be
// for is still waiting.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** The SDK's own request timeout, out of the way: the idle timeout is kept by CallWatches. */
export const NO_SDK_TIMEOUT = 2_147_483_647;

interface Watch {
  /** (Re)starts the idle timer, unless the server is waiting on the user. */
  arm(): void;
  disarm(): void;
  ended: Set<() => void>;
}

export class CallWatches {
  private readonly calls = new Set<Watch>();
  /** Questions the server has put to the user that are still open. */
  private asking = 0;

  /**
   * Runs one call: `send` gets a signal that aborts when the caller's does, or (with a timeout
   * error the SDK passes on) after `idleMs` without `touch` — an answer, a progress notification.
   */
  async watch<T>(
    idleMs: number,
    outer: AbortSignal | undefined,
    send: (signal: AbortSignal, touch: () => void) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const cancel = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", cancel, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const watch: Watch = {
      arm: () => {
        clearTimeout(timer);
        if (this.asking > 0) return;
        timer = setTimeout(
          () =>
            controller.abort(
              new McpError(
                ErrorCode.RequestTimeout,
                `Request timed out: no answer or progress for ${idleMs} ms`,
              ),
            ),
          idleMs,
        );
      },
      disarm: () => clearTimeout(timer),
      ended: new Set(),
    };
    this.calls.add(watch);
    watch.arm();
    try {
      return await send(controller.signal, () => watch.arm());
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", cancel);
      this.calls.delete(watch);
      for (const ended of [...watch.ended]) ended();
    }
  }

  /**
   * The server asks the user something: the idle timers of the calls out stand still until every
   * open question is answered. The question's signal aborts when the server withdraws it, or when
   * every call out as it came has ended (it was for one of them, and no one waits for the answer
   * now: a cancelled call closes its form).
   */
  userAsked(serverSignal: AbortSignal): { signal: AbortSignal; done(): void } {
    this.asking += 1;
    if (this.asking === 1) for (const call of this.calls) call.disarm();
    const controller = new AbortController();
    const withdraw = () => controller.abort();
    serverSignal.addEventListener("abort", withdraw, { once: true });
    const waiting = [...this.calls];
    let open = waiting.length;
    const oneEnded = () => {
      open -= 1;
      if (open === 0) controller.abort();
    };
    for (const call of waiting) call.ended.add(oneEnded);
    return {
      signal: controller.signal,
      done: () => {
        serverSignal.removeEventListener("abort", withdraw);
        for (const call of waiting) call.ended.delete(oneEnded);
        this.asking -= 1;
        if (this.asking === 0) for (const call of this.calls) call.arm();
      },
    };
  }
}
