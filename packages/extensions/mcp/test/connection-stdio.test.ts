// The connection module over stdio against the fixture server: list_changed, a server killed
// mid-call (tool error, reconnect, next call succeeds), stderr in the per-server log, the
// process tree ended on shutdown, timeouts, abort, a dead command, and background reconnects.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stillRunning } from "@keel/extension-sdk/node";
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../src/connection/index.js";

import { nextEvent, statusReaches } from "./helpers/events.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { stdioSpec, tempDir } from "./helpers/servers.js";

const alive = (pid: number) => stillRunning({ pid });

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function connect(
  extra: Parameters<typeof stdioSpec>[2] = {},
  backoff = { initialMs: 20, maxAttempts: 5, jitter: 0 },
) {
  const dir = tempDir();
  const connection = new McpConnection(stdioSpec("fixture", [fixture], extra), {
    clientInfo,
    logFile: join(dir.path, "logs", "fixture.log"),
    handlers: plainHandlers(),
    backoff,
    shutdownGraceMs: 300,
  });
  cleanups.push(dir.cleanup, () => connection.close());
  return connection;
}

const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join("");

describe("stdio connection", () => {
  it("lists tools, follows tools/list_changed, and keeps the server's stderr in its log", async () => {
    const connection = connect();
    expect((await connection.ready()).isOk()).toBe(true);
    expect(connection.status()).toMatchObject({ state: "connected", transport: "stdio", tools: 9 });
    const added = nextEvent(connection, "tools");
    expect((await connection.callTool("set_tools", { names: ["alpha", "beta"] })).isOk()).toBe(true);
    expect((await added).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["alpha", "beta"]));
    const removed = nextEvent(connection, "tools");
    await connection.callTool("set_tools", { names: ["beta"] });
    const names = (await removed).tools.map((t) => t.name);
    expect(names).toContain("beta");
    expect(names).not.toContain("alpha");
    const called = await connection.callTool("beta", {});
    expect(called.isOk() && text(called.value)).toBe("beta");
    expect(readFileSync(connection.log.file, "utf8")).toMatch(/fixture server \d+ starting/);
  });

  it("answers a call whose server was killed with a tool error, reconnects, and the next call works", async () => {
    const connection = connect();
    const pid = await connection.callTool("pid", {});
    const first = Number(pid.isOk() ? text(pid.value) : Number.NaN);
    expect(first).toBeGreaterThan(0);
    // Killed once the server reports progress, so the call is known to be running there.
    let killed = false;
    const call = connection.callTool(
      "slow",
      { ms: 20_000, every: 50 },
      {
        onProgress: () => {
          if (!killed) process.kill(first, "SIGKILL");
          killed = true;
        },
      },
    );
    const result = await call;
    expect(result.isErr() && result.error.type).toBe("disconnected");
    await statusReaches(connection, (s) => s.state === "connected");
    const again = await connection.callTool("pid", {});
    expect(again.isOk()).toBe(true);
    const second = Number(again.isOk() ? text(again.value) : Number.NaN);
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
  });

  it("reconnects on the next call when the backoff streak gave up", async () => {
    const connection = connect({}, { initialMs: 10, maxAttempts: 0, jitter: 0 });
    const pid = await connection.callTool("pid", {});
    process.kill(Number(pid.isOk() ? text(pid.value) : 0), "SIGKILL");
    await statusReaches(connection, (s) => s.state === "failed");
    const next = await connection.callTool("echo", { message: "back" });
    expect(next.isOk() && text(next.value)).toBe("echo: back");
    expect(connection.status().state).toBe("connected");
  });

  it("ends the whole process tree on close, children included", async () => {
    const connection = connect();
    const server = await connection.callTool("pid", {});
    const child = await connection.callTool("spawn_child", {});
    const serverPid = Number(server.isOk() ? text(server.value) : 0);
    const childPid = Number(child.isOk() ? text(child.value) : 0);
    expect(alive(serverPid) && alive(childPid)).toBe(true);
    await connection.close();
    expect(alive(serverPid)).toBe(false);
    expect(alive(childPid)).toBe(false);
    expect(connection.status().state).toBe("closed");
  });

  it("times a call out after its idle timeout, but progress keeps a long call alive", async () => {
    const connection = connect({ timeoutMs: 400 });
    const idle = await connection.callTool("slow", { ms: 3000 });
    expect(idle.isErr() && idle.error.type).toBe("timeout");
    const updates: number[] = [];
    const busy = await connection.callTool(
      "slow",
      { ms: 1200, every: 100 },
      { onProgress: (p) => updates.push(p.progress) },
    );
    expect(busy.isOk() && text(busy.value)).toBe("waited 1200");
    expect(updates.length).toBeGreaterThan(3);
  });

  it("cancels a call when its signal aborts", async () => {
    const connection = connect();
    await connection.ready();
    const controller = new AbortController();
    const call = connection.callTool(
      "slow",
      { ms: 10_000, every: 50 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const result = await call;
    expect(result.isErr() && result.error.type).toBe("cancelled");
    // The server got notifications/cancelled and the connection stays usable.
    const next = await connection.callTool("echo", { message: "still here" });
    expect(next.isOk()).toBe(true);
  });

  it("reports a command that cannot start, without throwing", async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const connection = new McpConnection(stdioSpec("missing", [], { command: "/nonexistent/mcp-server" }), {
      clientInfo,
      logFile: join(dir.path, "missing.log"),
      handlers: plainHandlers(),
      backoff: { maxAttempts: 0 },
    });
    cleanups.push(() => connection.close());
    const ready = await connection.ready();
    expect(ready.isErr() && ready.error.type).toBe("spawn_failed");
    expect(connection.status()).toMatchObject({ state: "failed", lastError: { type: "spawn_failed" } });
  });

  it("applies the server's allow and deny lists to the tools it offers", async () => {
    const connection = connect({ tools: { allow: ["echo", "s*"], deny: ["slow"] } });
    await connection.ready();
    expect(
      connection
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(["echo", "set_tools", "spawn_child", "summarise"]);
  });
});
