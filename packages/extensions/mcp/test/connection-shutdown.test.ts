// Closing a stdio server in any state — its handshake under way (a server that never answers
// initialize, ignores SIGTERM and keeps a child), a backoff wait, a call out — is done within a
// second and leaves nothing of its process group, or of its tree, running.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stillRunning } from "@keel/extension-sdk/node";
import { afterEach, describe, expect, it } from "vitest";
import { type BackoffOptions, McpConnection } from "../src/connection/index.js";
import { groupMembers as members } from "../src/connection/process-tree.js";

import { statusReaches } from "./helpers/events.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { stdioSpec, tempDir } from "./helpers/servers.js";

const alive = (pid: number) => stillRunning({ pid });
const groupMembers = (pgid: number) => members(pgid).map((p) => p.pid);

const silent = fileURLToPath(new URL("./fixtures/silent-server.mjs", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function silentServer(
  extra: Parameters<typeof stdioSpec>[2] = {},
  backoff: Partial<BackoffOptions> = { maxAttempts: 0 },
) {
  const dir = tempDir();
  const info = join(dir.path, "pids.json");
  const connection = new McpConnection(stdioSpec("silent", [silent, info], extra), {
    clientInfo,
    logFile: join(dir.path, "silent.log"),
    handlers: plainHandlers(),
    backoff,
  });
  cleanups.push(dir.cleanup, () => connection.close());
  const pids = () =>
    until(() =>
      existsSync(info)
        ? (JSON.parse(readFileSync(info, "utf8")) as { pid: number; child: number })
        : undefined,
    );
  return { connection, pids, info };
}

describe("closing a stdio server", () => {
  it("in its handshake: done within a second, its group and child gone", async () => {
    const { connection, pids } = silentServer();
    connection.start();
    const { pid, child } = await pids();
    // It leads a group of its own, its child in it.
    expect(groupMembers(pid).sort()).toEqual([pid, child].sort());
    const started = Date.now();
    await connection.close();
    // Three steps of DEFAULT_SHUTDOWN_STEP_MS at most, with room for a busy machine; a close that
    // waited on a timeout of its own (seconds) would still fail.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(groupMembers(pid)).toEqual([]);
    expect(alive(pid) || alive(child)).toBe(false);
    expect(connection.status().state).toBe("closed");
  });

  it("a call waiting for that handshake ends as the connection closes", async () => {
    const { connection, pids } = silentServer();
    const call = connection.callTool("anything", {});
    await pids();
    const started = Date.now();
    await connection.close();
    const result = await call;
    // Three steps of DEFAULT_SHUTDOWN_STEP_MS at most, with room for a busy machine; a close that
    // waited on a timeout of its own (seconds) would still fail.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(result.isErr()).toBe(true);
  });

  it("in a backoff wait: nothing of the failed attempt is left, and closing is at once", async () => {
    const { connection, pids } = silentServer(
      { startupTimeoutMs: 300 },
      { initialMs: 60_000, maxAttempts: 3, jitter: 0 },
    );
    connection.start();
    const { pid, child } = await pids();
    await statusReaches(connection, (s) => s.state === "reconnecting");
    // The attempt that timed out was ended with its whole group before the wait began.
    expect(groupMembers(pid)).toEqual([]);
    expect(alive(child)).toBe(false);
    const started = Date.now();
    await connection.close();
    expect(Date.now() - started).toBeLessThan(200);
  });

  it("with a call out and a child running: done within a second, nothing left", async () => {
    const dir = tempDir();
    const connection = new McpConnection(stdioSpec("fixture", [fixture]), {
      clientInfo,
      logFile: join(dir.path, "fixture.log"),
      handlers: plainHandlers(),
    });
    cleanups.push(dir.cleanup, () => connection.close());
    const server = await connection.callTool("pid", {});
    const child = await connection.callTool("spawn_child", {});
    const pid = Number(server.isOk() ? (server.value.content[0] as { text: string }).text : 0);
    const childPid = Number(child.isOk() ? (child.value.content[0] as { text: string }).text : 0);
    expect(groupMembers(pid)).toContain(childPid);
    const call = connection.callTool("slow", { ms: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await connection.close();
    // Three steps of DEFAULT_SHUTDOWN_STEP_MS at most, with room for a busy machine; a close that
    // waited on a timeout of its own (seconds) would still fail.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await call).isErr()).toBe(true);
    expect(groupMembers(pid)).toEqual([]);
    expect(alive(childPid)).toBe(false);
  });
});
