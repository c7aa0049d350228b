// The session's MCP servers: one connection each (started in the background, after activation,
// so no server delays the first request), what each lists now, its catalog entries run on its
// connection (waiting for a server still connecting), prompts fetched the same way, the status
// line, and one report per problem.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ActivationContext, ToolCallContext, ToolResult } from "@keel/extension-sdk";
import type { GetPromptResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { err, type Result } from "neverthrow";
import type { ServerInventory } from "./catalog/known.js";
import { groupFor, type Namer, serverNamer, toolNamer } from "./catalog/names.js";
import { DEFAULT_MAX_RESULT_CHARS, failureResult } from "./catalog/results.js";
import { type EntryContext, listResources, readResource, runTool } from "./catalog/run.js";
import type { HttpServerSpec, ServerSpec } from "./config/servers.js";
import {
  type BackoffOptions,
  type McpConnection as Connection,
  type ConnectionStatus,
  McpConnection,
  type McpFailure,
} from "./connection/index.js";
import { type BrowserOpener, openInBrowser } from "./connection/oauth/browser.js";
import { type OAuthSession, oauthSessionFor } from "./connection/oauth/session.js";
import { elicit } from "./features/elicitation.js";
import { type SamplingGate, sample } from "./features/sampling.js";
import { statusLine } from "./status.js";

export type McpRuntime = Pick<
  ActivationContext<unknown, unknown>,
  | "ui"
  | "workspace"
  | "session"
  | "dataDir"
  | "report"
  | "debug"
  | "approve"
  | "models"
  | "catalogs"
  | "commands"
  | "mentions"
>;

export interface ManagerOptions {
  maxResultChars?: number;
  /** Server name → the `<server>` part of its names (default: assigned here). */
  parts?: Map<string, string>;
  /** Server name → the namer of its entries, shared with whoever builds them (default: one each here). */
  namers?: Map<string, Namer>;
  /** Tells the host a server's catalog changed (default: nothing, for hosts that poll). */
  invalidate?: (server: string) => void;
  /** The browser (tests give a stand-in). */
  open?: BrowserOpener;
  backoff?: Partial<BackoffOptions>;
  clientVersion?: string;
}

export interface ServerHandle {
  spec: ServerSpec;
  /** The `<server>` part of its names (sanitised, unique). */
  part: string;
  group: string;
  connection: Connection;
  auth?: OAuthSession;
  namer: Namer;
}

export class McpManager {
  readonly servers: ServerHandle[] = [];
  private readonly gate: SamplingGate = { used: new Map() };
  private readonly reported = new Map<string, string>();
  private started = false;

  constructor(
    private readonly runtime: McpRuntime,
    specs: ServerSpec[],
    private readonly options: ManagerOptions = {},
  ) {
    const parts = options.parts ?? serverNamer().assign(specs.map((s) => s.name));
    for (const spec of specs) {
      const part = parts.get(spec.name)!;
      const handle = this.createHandle(spec, part);
      this.servers.push(handle);
    }
  }

  get(name: string): ServerHandle | undefined {
    return this.servers.find((s) => s.spec.name === name || s.part === name);
  }

  /** Starts connecting every enabled server, in the background. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.refreshStatus();
    for (const server of this.servers) server.connection.start();
  }

  /**
   * What a server lists now, once it has been listed in this session (undefined before): tools as
   * it gave them, prompts, resources and task support, instructions. Waits for a re-listing a
   * tools/list_changed started, so the next request carries that change.
   */
  async listed(name: string): Promise<ServerInventory | undefined> {
    const server = this.get(name);
    if (!server?.connection.hasListed()) return undefined;
    await server.connection.listsSettled();
    return this.snapshot(server);
  }

  /** The same without waiting (undefined until the server has been listed in this session). */
  snapshot(server: ServerHandle): ServerInventory | undefined {
    const { connection } = server;
    if (!connection.hasListed()) return undefined;
    const capabilities = connection.capabilities();
    const instructions = connection.instructions();
    return {
      tools: connection.listedTools(),
      prompts: connection.prompts(),
      resources: capabilities?.resources !== undefined,
      taskCalls: capabilities?.tasks?.requests?.tools?.call !== undefined,
      ...(instructions ? { instructions } : {}),
    };
  }

  /**
   * Runs a tool of `name` for the model: a server still connecting (or down) is connected first,
   * given its startup time and no longer than the call; the tool runs as the server lists it now.
   */
  async callTool(
    name: string,
    tool: Tool,
    args: Record<string, unknown>,
    call: ToolCallContext,
  ): Promise<ToolResult> {
    const server = this.get(name);
    if (!server)
      return failureResult(name, tool.name, { type: "unavailable", message: "the server is not configured" });
    const ready = await this.whenReady(server, call.signal);
    if (ready.isErr()) return failureResult(name, tool.name, ready.error);
    const live = server.connection.listedTools().find((t) => t.name === tool.name);
    if (!live)
      return failureResult(name, tool.name, {
        type: "unavailable",
        message:
          "the server no longer offers this tool (its tool list changed; search again with SearchTools)",
      });
    return runTool(this.entryContext(server), live, args, call);
  }

  async listResources(name: string, cursor: string | undefined, call: ToolCallContext): Promise<ToolResult> {
    const server = this.get(name);
    if (!server)
      return failureResult(name, "resources/list", { type: "unavailable", message: "not configured" });
    const ready = await this.whenReady(server, call.signal);
    if (ready.isErr()) return failureResult(name, "resources/list", ready.error);
    return listResources(this.entryContext(server), cursor, call);
  }

  async readResource(name: string, uri: string, call: ToolCallContext): Promise<ToolResult> {
    const server = this.get(name);
    if (!server)
      return failureResult(name, `resources/read ${uri}`, { type: "unavailable", message: "not configured" });
    const ready = await this.whenReady(server, call.signal);
    if (ready.isErr()) return failureResult(name, `resources/read ${uri}`, ready.error);
    return readResource(this.entryContext(server), uri, call);
  }

  /** One prompt of `name`, its server connected first if it is not yet (given its startup time). */
  async getPrompt(
    name: string,
    prompt: string,
    values: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Result<GetPromptResult, McpFailure>> {
    const server = this.get(name);
    if (!server) return err({ type: "unavailable", message: `MCP server "${name}" is not configured` });
    const ready = await this.whenReady(server, signal);
    if (ready.isErr()) return err(ready.error);
    return server.connection.getPrompt(prompt, values, signal);
  }

  private whenReady(server: ServerHandle, signal: AbortSignal): Promise<Result<void, McpFailure>> {
    this.start();
    return server.connection.ready({ signal, timeoutMs: server.spec.startupTimeoutMs });
  }

  /** The workspace root changed (a resumed or switched session): tell servers that asked for roots. */
  rootsChanged(): void {
    for (const server of this.servers) server.connection.rootsChanged();
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.connection.close()));
  }

  /** Runs the browser login (or step-up) for a server and reconnects it. */
  async login(server: ServerHandle, signal?: AbortSignal): Promise<Result<void, McpFailure>> {
    if (!server.auth)
      return err({ type: "unavailable", message: `MCP server "${server.spec.name}" does not use OAuth` });
    const scope = server.auth.store.read().pendingScope;
    const done = await server.auth.authorize({ ...(scope ? { scope } : {}), ...(signal ? { signal } : {}) });
    if (done.isErr()) return err(done.error);
    return server.connection.reconnect();
  }

  // ---- per server ----

  private createHandle(spec: ServerSpec, part: string): ServerHandle {
    const runtime = this.runtime;
    const open = this.options.open ?? openInBrowser;
    const auth = oauthSessionFor(spec, {
      storeDir: join(runtime.dataDir(), "oauth"),
      open,
      tell: (message) => runtime.ui.notify(message, "info"),
      clientName: "Keel",
      ...(this.options.clientVersion ? { clientVersion: this.options.clientVersion } : {}),
    });
    const connection = new McpConnection(spec, {
      clientInfo: { name: "keel", version: this.options.clientVersion ?? "0.0.0" },
      logFile: join(runtime.dataDir(), "logs", `${part}.log`),
      handlers: {
        roots: () => [{ uri: pathToFileURL(runtime.workspace.projectRoot).href, name: "workspace" }],
        elicit: (params, signal) => elicit(params, { server: spec.name, ui: runtime.ui, open }, signal),
        sample: (params, signal) => sample(spec.name, spec.sampling, params, runtime, this.gate, signal),
      },
      ...(auth ? { auth } : {}),
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
    });
    const handle: ServerHandle = {
      spec,
      part,
      group: groupFor(part),
      connection,
      ...(auth ? { auth } : {}),
      namer: this.options.namers?.get(spec.name) ?? toolNamer(part),
    };
    connection.on((event) => {
      // A state change too: what the catalog says of a server still settling follows it.
      if (
        event.type === "tools" ||
        event.type === "tools_changing" ||
        event.type === "prompts" ||
        event.type === "status"
      )
        this.options.invalidate?.(spec.name);
      if (event.type === "status") this.onStatus(handle, event.status);
      else if (event.type === "warning")
        this.reportOnce(handle, `warning:${event.message}`, "warning", event.message);
    });
    return handle;
  }

  private entryContext(server: ServerHandle): EntryContext {
    return {
      connection: server.connection,
      maxChars: () => this.options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
      saveDir: () => join(this.runtime.dataDir(), "results", this.runtime.session.id),
      authorize: (failure: Extract<McpFailure, { type: "auth_required" }>, signal: AbortSignal) =>
        this.authorizeInCall(server, failure, signal),
      visitUrls: (elicitations: unknown[], signal: AbortSignal) =>
        this.visitUrls(server, elicitations, signal),
    };
  }

  /** A call met an auth challenge: with someone at the terminal, offer the browser flow. */
  private async authorizeInCall(
    server: ServerHandle,
    failure: Extract<McpFailure, { type: "auth_required" }>,
    signal: AbortSignal,
  ): Promise<boolean> {
    if (!server.auth || !this.runtime.ui.supports.confirm) return false;
    const what = failure.scope ? `more access (scope "${failure.scope}")` : "authorization";
    const answer = await this.runtime.ui.confirm(
      `MCP server "${server.spec.name}" needs ${what}`,
      `Open the browser to authorize Keel at ${new URL((server.spec as HttpServerSpec).url).host}?`,
    );
    if (answer.status !== "ok" || !answer.value) return false;
    const done = await server.auth.authorize({ ...(failure.scope ? { scope: failure.scope } : {}), signal });
    if (done.isErr()) this.runtime.ui.notify(done.error.message, "error");
    return done.isOk();
  }

  private async visitUrls(server: ServerHandle, elicitations: unknown[], signal: AbortSignal): Promise<void> {
    const open = this.options.open ?? openInBrowser;
    for (const item of elicitations) {
      const params = item as { mode?: string; url?: string; message?: string; elicitationId?: string };
      if (params.mode !== "url" || typeof params.url !== "string") continue;
      await elicit(
        {
          mode: "url",
          url: params.url,
          message: params.message ?? "",
          elicitationId: params.elicitationId ?? "",
        },
        { server: server.spec.name, ui: this.runtime.ui, open },
        signal,
      );
    }
  }

  private onStatus(server: ServerHandle, status: ConnectionStatus): void {
    this.refreshStatus();
    this.runtime.debug(
      `${server.spec.name}: ${status.state}${status.lastError ? ` (${status.lastError.message})` : ""}`,
    );
    if (status.state === "connected") {
      this.reported.delete(server.spec.name);
      return;
    }
    const error = status.lastError;
    if (!error) return;
    if (status.state === "needs-auth") this.reportOnce(server, "needs-auth", "warning", error.message);
    else if (status.state === "failed" || (status.state === "reconnecting" && status.attempt === 1))
      this.reportOnce(
        server,
        `down:${error.type}`,
        "warning",
        `MCP server "${server.spec.name}" is unavailable: ${error.message} (log: ${server.connection.log.file}). /mcp shows its status.`,
      );
  }

  private reportOnce(server: ServerHandle, key: string, level: "warning" | "error", message: string): void {
    if (this.reported.get(server.spec.name) === key) return;
    this.reported.set(server.spec.name, key);
    this.runtime.report(level, message);
  }

  refreshStatus(): void {
    this.runtime.ui.setStatus("mcp", statusLine(this.servers.map((s) => s.connection.status())));
  }
}
