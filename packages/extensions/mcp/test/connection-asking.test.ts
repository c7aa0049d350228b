// While a server waits on the user (an elicitation form, a sampling request), the idle timeout of
// the calls out stands still: an answer that comes after the timeout would have fired still
// completes the call. A form whose call was cancelled is withdrawn.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ClientFeatureHandlers } from "../src/connection/client.js";
import { McpConnection } from "../src/connection/index.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { stdioSpec, tempDir } from "./helpers/servers.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const IDLE_MS = 400;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connect(handlers: Partial<ClientFeatureHandlers>) {
  const dir = tempDir();
  const connection = new McpConnection(
    stdioSpec("fixture", [fixture], {
      timeoutMs: IDLE_MS,
      sampling: { enabled: true, maxTokens: 50, maxRequests: 5 },
    }),
    { clientInfo, logFile: join(dir.path, "fixture.log"), handlers: plainHandlers(handlers) },
  );
  cleanups.push(dir.cleanup, () => connection.close());
  return connection;
}

const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join("");

describe("a call while the user is asked", () => {
  it("completes when the form is answered long after the idle timeout would have fired", async () => {
    const connection = connect({
      elicit: async () => {
        await sleep(IDLE_MS * 3);
        return { action: "accept", content: { name: "Ada", colour: "blue" } };
      },
    });
    expect((await connection.ready()).isOk()).toBe(true);
    const result = await connection.callTool("ask", {});
    expect(result.isOk() && text(result.value)).toContain('"name":"Ada"');
  });

  it("completes when a sampling request is answered after the idle timeout would have fired", async () => {
    const connection = connect({
      sample: async () => {
        await sleep(IDLE_MS * 3);
        return { role: "assistant", content: { type: "text", text: "short" }, model: "test" };
      },
    });
    const result = await connection.callTool("summarise", { text: "a long text" });
    expect(result.isOk() && text(result.value)).toBe("short");
  });

  it("still times out after the answer when the server then goes quiet", async () => {
    const connection = connect({});
    // The control: with no one asked, the same idle timeout ends a silent call.
    const quiet = await connection.callTool("slow", { ms: IDLE_MS * 4 });
    expect(quiet.isErr() && quiet.error.type).toBe("timeout");
  });

  it("withdraws the form when its call is cancelled", async () => {
    let formSignal: AbortSignal | undefined;
    let asked!: () => void;
    const opened = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const connection = connect({
      elicit: (_params, signal) => {
        formSignal = signal;
        asked();
        // A person who never answers: the form stays open until it is withdrawn.
        return new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
        );
      },
    });
    const controller = new AbortController();
    const call = connection.callTool("ask", {}, { signal: controller.signal });
    await opened;
    expect(formSignal?.aborted).toBe(false);
    controller.abort();
    const result = await call;
    expect(result.isErr() && result.error.type).toBe("cancelled");
    const deadline = Date.now() + 2_000;
    while (!formSignal?.aborted && Date.now() < deadline) await sleep(10);
    expect(formSignal?.aborted).toBe(true);
    // The connection is fine afterwards.
    expect((await connection.callTool("echo", { message: "ok" })).isOk()).toBe(true);
  });
});
