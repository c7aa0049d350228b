// One MCP server connection: connects in the background, keeps the last good tool list, and
// reconnects after a loss — with backoff on its own, at once when a call needs the server —
// for every transport. A call's idle timeout stands still while the server waits on the user
// (elicitation, sampling). Each state change is an event; every failure is a McpFailure value.
// One long idea: this is the connection's state machine (idle → connecting → connected →
// reconnecting / failed / needs-auth → closed). Requests, reconnects, probes and list refreshes
// all read and move the same private state, so they stay on one class; what does not touch that
// state already lives beside it (open.ts, client.ts, calls.ts, lists.ts, backoff.ts, tasks.ts).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  type GetPromptResult,
  GetPromptResultSchema,
  type Implementation,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  type Progress,
  type Prompt,
  ReadResourceResultSchema,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { err, ok, type Result } from "neverthrow";
import { type ServerSpec, toolAllowed } from "../config/servers.js";
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from "./backoff.js";
import { CallWatches, NO_SDK_TIMEOUT } from "./calls.js";
import { createClient } from "./client.js";
import { classify, type McpFailure } from "./errors.js";
import { listAllPrompts, listAllTools, sameList } from "./lists.js";
import { ServerLog } from "./log.js";
import { closeLive, type Live, openLive } from "./open.js";
import { DEFAULT_SHUTDOWN_STEP_MS } from "./stdio.js";
import { callAsTask } from "./tasks.js";
import type {
  CallOptions,
  ConnectionEvent,
  ConnectionOptions,
  ConnectionState,
  ConnectionStatus,
} from "./types.js";

export type {
  AuthSession,
  CallOptions,
  ConnectionEvent,
  ConnectionOptions,
  ConnectionState,
  ConnectionStatus,
  TransportKind,
} from "./types.js";

type Listener = (event: ConnectionEvent) => void;

const PROBE_TIMEOUT_MS = 5000;
const LIST_TIMEOUT_MS = 30_000;
export class McpConnection {
  readonly log: ServerLog;
  private state: ConnectionState;
  private live: Live | undefined;
  private connecting: Promise<Result<Live, McpFailure>> | undefined;
  /** Aborts the attempt under way (the connection is closing). */
  private attemptAbort: AbortController | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  /** Requests out now: an HTTP transport error with none out concerns the background stream. */
  private inflight = 0;
  private lastError: McpFailure | undefined;
  private everConnected = false;
  /** A tools listing (or a server without tools) has succeeded in this session. */
  private listed = false;
  /** When the attempt under way started (ms since the epoch). */
  private attemptStarted: number | undefined;
  /** After a fallback worked, reconnects go straight to legacy SSE. */
  private preferSse = false;
  private allTools: Tool[] = [];
  private promptList: Prompt[] = [];
  private refreshing: Promise<void> | undefined;
  /** The re-listing a tools/list_changed started (never the first listing of a connect). */
  private changing: Promise<void> | undefined;
  private refreshAgain = false;
  private info: { serverInfo?: Implementation; instructions?: string; capabilities?: ServerCapabilities } =
    {};
  private readonly listeners = new Set<Listener>();
  private readonly backoff: BackoffOptions;
  private readonly calls = new CallWatches();

  constructor(
    readonly spec: ServerSpec,
    private readonly options: ConnectionOptions,
  ) {
    this.log = new ServerLog(options.logFile);
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.state = spec.enabled ? "idle" : "disabled";
  }

  get name(): string {
    return this.spec.name;
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(): ConnectionStatus {
    const sessionId = (this.live?.transport as { sessionId?: string } | undefined)?.sessionId;
    return {
      server: this.spec.name,
      state: this.state,
      ...(this.live ? { transport: this.live.kind } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(this.info.serverInfo ? { serverInfo: this.info.serverInfo } : {}),
      tools: this.tools().length,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      attempt: this.attempt,
    };
  }

  /** The last good tool list, filtered by the server's allow / deny lists. */
  tools(): Tool[] {
    return this.allTools.filter((tool) => toolAllowed(this.spec, tool.name));
  }

  /** The last good tool list as the server gave it (before the allow / deny lists). */
  listedTools(): Tool[] {
    return this.allTools;
  }

  /** Whether the server's tools have been listed in this session (what it offers is known, not remembered). */
  hasListed(): boolean {
    return this.listed;
  }

  /** When the connection attempt under way started, if one is. */
  attemptStartedAt(): number | undefined {
    return this.connecting ? this.attemptStarted : undefined;
  }

  prompts(): Prompt[] {
    return this.promptList;
  }

  /**
   * Settles when the re-listing started by the server's last tools/list_changed is done, so the
   * next request can carry the change. Never waits for a connection to come up.
   */
  listsSettled(): Promise<void> {
    return this.changing ?? Promise.resolve();
  }

  /** The server's `instructions` from its last initialize. */
  instructions(): string | undefined {
    return this.info.instructions;
  }

  capabilities(): ServerCapabilities | undefined {
    return this.info.capabilities;
  }

  /** Starts connecting in the background (once; a disabled or closed server stays so). */
  start(): void {
    if (this.state === "idle") void this.connect();
  }

  /**
   * Waits for the connection (connecting now if it is down), e.g. before a call: at most
   * `timeoutMs` (a server still starting is given its startup time), and never past `signal`.
   */
  async ready(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Result<void, McpFailure>> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return err({ type: "cancelled", message: "cancelled" });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stops: Promise<Result<Live, McpFailure>>[] = [];
    if (timeoutMs !== undefined)
      stops.push(
        new Promise((resolve) => {
          timer = setTimeout(
            () =>
              resolve(
                err({
                  type: "unavailable",
                  message: `MCP server "${this.spec.name}" did not finish connecting within ${Math.round(timeoutMs / 1000)} s`,
                }),
              ),
            timeoutMs,
          );
        }),
      );
    if (signal)
      stops.push(
        new Promise((resolve) => {
          onAbort = () => resolve(err({ type: "cancelled", message: "cancelled" }));
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      );
    try {
      const live = await Promise.race([this.ensure(), ...stops]);
      return live.isOk() ? ok(undefined) : err(live.error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Drops the current connection (if any) and connects again now, with a fresh backoff streak. */
  async reconnect(): Promise<Result<void, McpFailure>> {
    if (this.state === "closed" || this.state === "disabled") return err(this.unavailable());
    if (this.connecting) await this.connecting;
    const live = this.live;
    this.live = undefined;
    if (live) await this.closeLive(live);
    this.attempt = 0;
    const result = await this.connect();
    return result.isOk() ? ok(undefined) : err(result.error);
  }

  /**
   * tools/call. It times out after the spec's `timeoutMs` without an answer or a progress
   * notification, not counting the time the server spends waiting on the user.
   */
  callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}) {
    return this.request<CallToolResult>(
      (live) =>
        this.calls.watch(this.spec.timeoutMs, options.signal, (signal, touch) => {
          const onProgress = (progress: Progress) => {
            touch();
            options.onProgress?.(progress);
          };
          if (options.task)
            return callAsTask(live.client, name, args, {
              signal,
              touch,
              requestTimeoutMs: this.spec.timeoutMs,
              onProgress,
              ...(options.onTaskStatus ? { onStatus: options.onTaskStatus } : {}),
            });
          return live.client.callTool({ name, arguments: args }, undefined, {
            timeout: NO_SDK_TIMEOUT,
            signal,
            // Always asked for: progress keeps a long call from timing out, whoever listens.
            onprogress: onProgress,
          }) as Promise<CallToolResult>;
        }),
      options.signal,
    );
  }

  listResources(cursor: string | undefined, signal?: AbortSignal) {
    return this.request(
      (live) =>
        live.client.request(
          { method: "resources/list", params: cursor ? { cursor } : {} },
          ListResourcesResultSchema,
          this.requestOptions(signal),
        ),
      signal,
    );
  }

  listResourceTemplates(signal?: AbortSignal) {
    return this.request(
      (live) =>
        live.client.request(
          { method: "resources/templates/list", params: {} },
          ListResourceTemplatesResultSchema,
          this.requestOptions(signal),
        ),
      signal,
    );
  }

  readResource(uri: string, signal?: AbortSignal) {
    return this.request(
      (live) =>
        live.client.request(
          { method: "resources/read", params: { uri } },
          ReadResourceResultSchema,
          this.requestOptions(signal),
        ),
      signal,
    );
  }

  getPrompt(
    name: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Result<GetPromptResult, McpFailure>> {
    return this.request(
      (live) =>
        live.client.request(
          { method: "prompts/get", params: { name, arguments: args } },
          GetPromptResultSchema,
          this.requestOptions(signal),
        ),
      signal,
    );
  }

  /** Tells the server its roots changed (it asks for them again with roots/list). */
  rootsChanged(): void {
    void this.live?.client.sendRootsListChanged().catch(() => {});
  }

  /**
   * Ends the connection in whatever state it is (an attempt under way, a backoff wait, calls out):
   * the attempt is aborted and its process ended, the live server shut down, within about a second.
   */
  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.setState("closed");
    this.clearTimers();
    this.attemptAbort?.abort();
    const live = this.live;
    this.live = undefined;
    const ending = live ? this.closeLive(live) : Promise.resolve();
    if (this.connecting) await this.connecting;
    await ending;
    this.log.write("closed");
    await this.log.flushed();
  }

  // ---- requests ----

  private requestOptions(signal: AbortSignal | undefined) {
    return { timeout: this.spec.timeoutMs, ...(signal ? { signal } : {}) };
  }

  /**
   * Runs `op` on a live connection. A session the server forgot is renewed and the request sent
   * again (the server never handled it); a lost connection is an error (the outcome is unknown)
   * and is reconnected.
   */
  private async request<T>(
    op: (live: Live) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<Result<T, McpFailure>> {
    for (let round = 0; round < 2; round++) {
      if (signal?.aborted) return err({ type: "cancelled", message: "cancelled" });
      const ready = await this.ensure();
      if (ready.isErr()) return err(ready.error);
      const live = ready.value;
      const result = await this.run(live, op, signal);
      if (result.isOk()) return result;
      const failure = result.error;
      if (failure.type === "session_expired") {
        this.lost(live, failure, { retry: false });
        continue;
      }
      if (failure.type === "disconnected" || failure.type === "connect_failed") this.lost(live, failure);
      return result;
    }
    return err({
      type: "unavailable",
      message: `${this.spec.name}: the request failed after renewing the session`,
    });
  }

  /** `op` on one live connection; an auth challenge is answered once the user finished in the browser. */
  private async run<T>(
    live: Live,
    op: (live: Live) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<Result<T, McpFailure>> {
    for (let round = 0; ; round++) {
      this.inflight += 1;
      try {
        return ok(await op(live));
      } catch (error) {
        const failure = classify(error, {
          aborted: signal?.aborted === true,
          hadSession: (live.transport as { sessionId?: string }).sessionId !== undefined,
        });
        if (failure.type !== "auth_required" || !this.options.auth || round >= 2)
          return err(this.noteAuth(failure));
        const code = await this.options.auth.takeAuthorization(signal);
        if (code.isErr()) return err(this.noteAuth(code.error));
        try {
          await (live.transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code.value);
        } catch (finishError) {
          return err(classify(finishError));
        }
      } finally {
        this.inflight -= 1;
      }
    }
  }

  private noteAuth(failure: McpFailure): McpFailure {
    if (failure.type === "auth_required") {
      this.lastError = failure;
      this.emitStatus();
    }
    return failure;
  }

  private unavailable(): McpFailure {
    const why = this.state === "disabled" ? "is disabled" : "is shut down";
    return { type: "unavailable", message: `MCP server "${this.spec.name}" ${why}` };
  }

  private async ensure(): Promise<Result<Live, McpFailure>> {
    if (this.state === "closed" || this.state === "disabled") return err(this.unavailable());
    if (this.live) return ok(this.live);
    // Down, failed or waiting out a backoff delay: a call does not wait, it tries now.
    return this.connect();
  }

  // ---- connecting ----

  private connect(): Promise<Result<Live, McpFailure>> {
    if (this.connecting) return this.connecting;
    this.clearTimers();
    this.attemptStarted = Date.now();
    const abort = new AbortController();
    this.attemptAbort = abort;
    this.setState(this.everConnected ? "reconnecting" : "connecting");
    this.connecting = this.open(abort.signal).then(async (result) => {
      if (this.state === "closed") {
        if (result.isOk()) await this.closeLive(result.value);
        this.connecting = undefined;
        return err(this.unavailable());
      }
      if (result.isErr()) {
        this.connecting = undefined;
        this.lastError = result.error;
        this.log.write(`connect failed: ${result.error.type}: ${result.error.message}`);
        if (result.error.type === "auth_required") this.setState("needs-auth");
        else this.scheduleRetry();
        return result;
      }
      const live = result.value;
      this.live = live;
      this.attempt = 0;
      this.lastError = undefined;
      this.everConnected = true;
      this.info = {
        ...(live.client.getServerVersion() ? { serverInfo: live.client.getServerVersion() } : {}),
        ...(live.client.getInstructions() ? { instructions: live.client.getInstructions() } : {}),
        ...(live.client.getServerCapabilities() ? { capabilities: live.client.getServerCapabilities() } : {}),
      };
      this.log.write(
        `connected over ${live.kind}${this.status().sessionId ? ` (session ${this.status().sessionId})` : ""}`,
      );
      await this.refreshLists(live);
      this.connecting = undefined;
      // A loss while the lists were read already moved the state on.
      if (this.live === live) this.setState("connected");
      return result;
    });
    return this.connecting;
  }

  private async open(signal: AbortSignal): Promise<Result<Live, McpFailure>> {
    const opened = await openLive(this.spec, {
      newClient: () => this.newClient(),
      logFile: this.options.logFile,
      log: this.log,
      preferSse: this.preferSse,
      signal,
      ...(this.options.auth ? { auth: this.options.auth } : {}),
    });
    if (opened.isErr()) return err(opened.error);
    if (opened.value.kind === "sse" && this.spec.transport === "http") this.preferSse = true;
    return ok(this.wire(opened.value));
  }

  private newClient(): Client {
    const handlers = this.options.handlers;
    const asking =
      <P, R>(handle: (params: P, signal: AbortSignal) => Promise<R>) =>
      async (params: P, signal: AbortSignal): Promise<R> => {
        const question = this.calls.userAsked(signal);
        try {
          return await handle(params, question.signal);
        } finally {
          question.done();
        }
      };
    const sample = handlers.sample;
    const client = createClient(
      this.options.clientInfo,
      {
        roots: handlers.roots,
        elicit: asking(handlers.elicit),
        ...(sample ? { sample: asking(sample) } : {}),
      },
      {
        toolsChanged: () => {
          this.changing = this.refreshLists();
          this.emit({ type: "tools_changing" });
        },
        promptsChanged: () => void this.refreshLists(),
        resourcesChanged: () => this.emit({ type: "resources" }),
        elicitationComplete: (elicitationId) => this.emit({ type: "elicitation_complete", elicitationId }),
        log: (level, data, logger) =>
          this.log.write(
            `server log [${level}]${logger ? ` ${logger}` : ""}: ${typeof data === "string" ? data : JSON.stringify(data)}`,
          ),
      },
      { sampling: this.spec.sampling.enabled },
    );
    return client;
  }

  private wire(live: Live): Live {
    live.client.onclose = () => {
      if (!live.closing)
        this.lost(live, { type: "disconnected", message: "the server closed the connection" });
    };
    live.client.onerror = (error) => {
      this.log.write(`transport error: ${error.message}`);
      // HTTP reports a broken background event stream only here: check the session survived.
      if (live.kind !== "stdio" && !live.closing && this.inflight === 0) this.probeSoon(live);
    };
    return live;
  }

  private probeSoon(live: Live): void {
    if (this.probeTimer) return;
    this.probeTimer = setTimeout(() => {
      void (async () => {
        try {
          if (this.live === live) await live.client.ping({ timeout: PROBE_TIMEOUT_MS });
        } catch (error) {
          const failure = classify(error, {
            hadSession: (live.transport as { sessionId?: string }).sessionId !== undefined,
          });
          if (this.live === live) this.lost(live, failure);
        } finally {
          this.probeTimer = undefined;
        }
      })();
    }, 100);
    this.probeTimer.unref();
  }

  /** The live connection is gone: forget it, and reconnect with backoff unless told not to. */
  private lost(live: Live, failure: McpFailure, options: { retry: boolean } = { retry: true }): void {
    if (this.live !== live) return;
    this.live = undefined;
    this.lastError = failure;
    this.log.write(`connection lost: ${failure.type}: ${failure.message}`);
    void this.closeLive(live);
    if (options.retry) this.scheduleRetry();
    else this.setState("reconnecting");
  }

  private scheduleRetry(): void {
    if (this.state === "closed") return;
    this.attempt += 1;
    const delay = backoffDelay(this.backoff, this.attempt, this.options.random);
    if (delay === undefined) {
      this.setState("failed");
      return;
    }
    this.setState("reconnecting");
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  private closeLive(live: Live): Promise<void> {
    return closeLive(live, this.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_STEP_MS);
  }

  // ---- lists ----

  /** Re-reads tools and prompts; a failure keeps the last good lists (and says so once). */
  private refreshLists(live = this.live): Promise<void> {
    if (!live) return Promise.resolve();
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const capabilities = live.client.getServerCapabilities();
        const options = { timeout: LIST_TIMEOUT_MS };
        if (capabilities?.tools) {
          const tools = await this.run(live, () => listAllTools(live.client, options));
          if (tools.isErr())
            this.emit({
              type: "warning",
              message: `MCP server "${this.spec.name}": listing tools failed (${tools.error.message}); keeping the previous list`,
            });
          else {
            this.listed = true;
            if (!sameList(tools.value, this.allTools)) {
              this.allTools = tools.value;
              this.emit({ type: "tools", tools: this.tools() });
            }
          }
        } else if (this.allTools.length > 0) {
          // A server that no longer declares tools offers none.
          this.listed = true;
          this.allTools = [];
          this.emit({ type: "tools", tools: [] });
        } else this.listed = true;
        if (capabilities?.prompts) {
          const prompts = await this.run(live, () => listAllPrompts(live.client, options));
          if (prompts.isErr()) this.log.write(`listing prompts failed: ${prompts.error.message}`);
          else if (!sameList(prompts.value, this.promptList)) {
            this.promptList = prompts.value;
            this.emit({ type: "prompts", prompts: prompts.value });
          }
        }
      } while (this.refreshAgain && this.live === live);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  // ---- events ----

  private setState(state: ConnectionState): void {
    if (this.state === "closed" && state !== "closed") return;
    this.state = state;
    this.emitStatus();
  }

  private emitStatus(): void {
    this.emit({ type: "status", status: this.status() });
  }

  private emit(event: ConnectionEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // a listener's bug must not break the connection
      }
    }
  }
}
