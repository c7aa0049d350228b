// Opening one connection attempt: stdio (spawn, handshake, a clear message when the server dies
// while starting) or HTTP (Streamable HTTP, the OAuth round when the server challenges, the
// legacy SSE fallback on a 4xx handshake). A fresh SDK Client per attempt; an attempt ends at
// once when its signal aborts (the connection closes), its process ended with it.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { err, ok, type Result } from "neverthrow";
import type { HttpServerSpec, ServerSpec, StdioServerSpec } from "../config/servers.js";
import { classify, type McpFailure } from "./errors.js";
import { shouldFallBackToSse, sseTransport, streamableTransport } from "./http.js";
import type { ServerLog } from "./log.js";
import { openStdio, type StdioHandle } from "./stdio.js";
import type { AuthSession, TransportKind } from "./types.js";

/** A connection that completed its handshake. */
export interface Live {
  client: Client;
  transport: Transport;
  kind: TransportKind;
  stdio?: StdioHandle;
  closing: boolean;
}

export interface OpenContext {
  newClient(): Client;
  logFile: string;
  log: ServerLog;
  auth?: AuthSession;
  /** A fallback worked before: go straight to legacy SSE. */
  preferSse: boolean;
  /** Aborted when the connection closes while the attempt is under way. */
  signal?: AbortSignal;
}

export function openLive(spec: ServerSpec, context: OpenContext): Promise<Result<Live, McpFailure>> {
  return spec.transport === "stdio" ? openStdioLive(spec, context) : openHttpLive(spec, context);
}

async function openStdioLive(spec: StdioServerSpec, context: OpenContext): Promise<Result<Live, McpFailure>> {
  const handle = openStdio(spec, context.logFile);
  const client = context.newClient();
  try {
    await client.connect(handle.transport, {
      timeout: spec.startupTimeoutMs,
      ...(context.signal ? { signal: context.signal } : {}),
    });
  } catch (error) {
    await handle.shutdown(() => client.close()).catch(() => {});
    if (context.signal?.aborted) return err({ type: "unavailable", message: "the connection was closed" });
    const failure = classify(error);
    const said = context.log.tail();
    if (failure.type === "disconnected")
      return err({
        type: "connect_failed",
        message: `the server exited before it finished starting${said ? `; its log ends: ${said}` : ""}`,
      });
    return err(failure);
  }
  return ok({ client, transport: handle.transport, kind: "stdio", stdio: handle, closing: false });
}

async function openHttpLive(spec: HttpServerSpec, context: OpenContext): Promise<Result<Live, McpFailure>> {
  let kind: "http" | "sse" = spec.transport === "sse" || context.preferSse ? "sse" : "http";
  for (let round = 0; round < 4; round++) {
    const transport =
      kind === "sse" ? sseTransport(spec, context.auth) : streamableTransport(spec, context.auth);
    const client = context.newClient();
    try {
      await client.connect(transport, {
        timeout: spec.startupTimeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      return ok({ client, transport, kind, closing: false });
    } catch (error) {
      await client.close().catch(() => {});
      if (context.signal?.aborted) return err({ type: "unavailable", message: "the connection was closed" });
      const failure = classify(error);
      if (failure.type === "auth_required" && context.auth) {
        const code = await context.auth.takeAuthorization(context.signal);
        if (code.isErr()) return err(code.error);
        try {
          await transport.finishAuth(code.value);
        } catch (finishError) {
          return err(classify(finishError));
        }
        continue;
      }
      if (kind === "http" && spec.transport === "http" && shouldFallBackToSse(error)) {
        context.log.write(`Streamable HTTP handshake refused (${failure.message}); trying legacy SSE`);
        kind = "sse";
        continue;
      }
      return err(failure);
    }
  }
  return err({ type: "auth_required", message: `${spec.name}: authorization did not complete` });
}

/**
 * Ends one live connection: a stdio server's group and tree (each step `stepMs`), or the HTTP
 * session (politely, within one step or so).
 */
export async function closeLive(live: Live, stepMs: number): Promise<void> {
  if (live.closing && !live.stdio) return;
  live.closing = true;
  if (live.stdio) {
    await live.stdio.shutdown(() => live.client.close(), stepMs).catch(() => {});
    return;
  }
  const streamable = live.transport as Partial<StreamableHTTPClientTransport>;
  if (live.kind === "http" && streamable.sessionId && streamable.terminateSession) {
    // Polite: tell the server the session is over; a dead server must not hold up shutdown.
    await Promise.race([
      streamable.terminateSession.call(live.transport).catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 2 * stepMs).unref()),
    ]);
  }
  await live.client.close().catch(() => {});
}
