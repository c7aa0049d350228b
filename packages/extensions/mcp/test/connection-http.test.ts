// The connection module over HTTP against in-process SDK servers on 127.0.0.1: Streamable HTTP
// with sessions, a server restart mid-session (a new session is adopted and the call is sent
// again), tools/list_changed over the event stream, the legacy SSE fallback, and a dead URL.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../src/connection/index.js";
// @ts-expect-error: a plain ESM fixture without types
import { createFixtureServer } from "./fixtures/fixture-server.mjs";
import { nextEvent, statusReaches } from "./helpers/events.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { startLegacySseServer, startStreamableServer } from "./helpers/http-server.js";
import { httpSpec, tempDir } from "./helpers/servers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const fixture = () => createFixtureServer().server;
const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join("");

function connect(url: string, extra: Parameters<typeof httpSpec>[2] = {}) {
  const dir = tempDir();
  const connection = new McpConnection(httpSpec("web", url, extra), {
    clientInfo,
    logFile: join(dir.path, "web.log"),
    handlers: plainHandlers(),
    backoff: { initialMs: 20, maxAttempts: 4, jitter: 0 },
  });
  cleanups.push(dir.cleanup, () => connection.close());
  return connection;
}

describe("Streamable HTTP connection", () => {
  it("connects, calls, and follows tools/list_changed over the event stream", async () => {
    const server = await startStreamableServer(fixture);
    cleanups.push(() => server.stop());
    const connection = connect(server.url);
    expect((await connection.ready()).isOk()).toBe(true);
    expect(connection.status()).toMatchObject({
      state: "connected",
      transport: "http",
      sessionId: server.sessions[0],
    });
    const changed = nextEvent(connection, "tools");
    await connection.callTool("set_tools", { names: ["gamma"] });
    expect((await changed).tools.map((t) => t.name)).toContain("gamma");
    const removed = nextEvent(connection, "tools");
    await connection.callTool("set_tools", { names: [] });
    expect((await removed).tools.map((t) => t.name)).not.toContain("gamma");
  });

  it("keeps the last good tool list when re-listing after tools/list_changed fails", async () => {
    const server = await startStreamableServer(fixture);
    cleanups.push(() => server.stop());
    const connection = connect(server.url);
    await connection.ready();
    const before = connection.tools().map((t) => t.name);
    server.failing.add("tools/list");
    const warned = nextEvent(connection, "warning");
    await connection.callTool("set_tools", { names: ["never_seen"] });
    expect((await warned).message).toContain("keeping the previous list");
    expect(connection.tools().map((t) => t.name)).toEqual(before);
    expect(connection.status().state).toBe("connected");
  });

  it("adopts a new session after the server restarts mid-session", async () => {
    const server = await startStreamableServer(fixture);
    cleanups.push(() => server.stop());
    const connection = connect(server.url);
    await connection.ready();
    const before = connection.status().sessionId;
    expect(before).toBe(server.sessions[0]);
    await server.restart();
    // The broken event stream tells the connection; the old session is gone (404), so it starts a new one.
    const after = await statusReaches(connection, (s) => s.state === "connected" && s.sessionId !== before);
    expect(after.sessionId).toBe(server.sessions[1]);
    const result = await connection.callTool("echo", { message: "after restart" });
    expect(result.isOk() && text(result.value)).toBe("echo: after restart");
    expect(server.requests.filter((r) => r.rpc === "tools/call").map((r) => r.session)).toEqual([
      after.sessionId,
    ]);
  });

  it("sends a call again on a new session when the server answers 404 for the old one", async () => {
    const server = await startStreamableServer(fixture);
    cleanups.push(() => server.stop());
    const connection = connect(server.url);
    await connection.ready();
    const before = connection.status().sessionId;
    server.forgetSessions();
    const result = await connection.callTool("echo", { message: "again" });
    expect(result.isOk() && text(result.value)).toBe("echo: again");
    const calls = server.requests.filter((r) => r.rpc === "tools/call");
    // Refused once on the forgotten session (never run), then run once on the new one.
    expect(calls.map((r) => r.session)).toEqual([before, server.sessions[1]]);
    expect(connection.status()).toMatchObject({ state: "connected", sessionId: server.sessions[1] });
  });

  it("falls back to the legacy HTTP+SSE transport when the handshake answers 4xx", async () => {
    const server = await startLegacySseServer(fixture);
    cleanups.push(() => server.stop());
    const connection = connect(server.url);
    expect((await connection.ready()).isOk()).toBe(true);
    expect(connection.status().transport).toBe("sse");
    const result = await connection.callTool("echo", { message: "old school" });
    expect(result.isOk() && text(result.value)).toBe("echo: old school");
    // Reconnects go straight to SSE.
    expect((await connection.reconnect()).isOk()).toBe(true);
    expect(connection.status().transport).toBe("sse");
  });

  it("reports a dead URL as a connect failure and keeps retrying in the background", async () => {
    const server = await startStreamableServer(fixture);
    const url = server.url;
    await server.stop();
    const connection = connect(url);
    const ready = await connection.ready();
    expect(ready.isErr() && ready.error.type).toBe("connect_failed");
    expect(["reconnecting", "failed"]).toContain(connection.status().state);
  });
});
