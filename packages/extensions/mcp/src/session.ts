// The extension's side of a session, kept light: the catalogs are declared at once (one per
// enabled server), listing what each server offered last time (known from disk, keyed by its
// definition) until it has been listed in this session, so the first request knows the tools
// without waiting. The client itself (the MCP SDK, a blocking load) loads once the first model
// response begins to arrive (its request is out), or after an idle delay; a call to a server still
// connecting waits for it, and a server that turns out to offer something else invalidates its
// catalog for one diff notice. Prompt commands come from the same knowledge: registered at once
// from what each server offered last time, kept in step as servers list, run by connecting first.
import { join } from "node:path";
import type {
  CatalogInventory,
  CatalogPending,
  ToolCallContext,
  ToolCatalog,
  ToolResult,
} from "@keel/extension-sdk";
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { err, type Result } from "neverthrow";
import { type EntryRunner, inventoryEntries } from "./catalog/entries.js";
import { KnownInventories, type ServerInventory, sameInventory } from "./catalog/known.js";
import { groupFor, type Namer, serverNamer, toolNamer } from "./catalog/names.js";
import type { ServerSpec } from "./config/servers.js";
import type { McpFailure } from "./connection/index.js";
import { importEsm } from "./esm-import.js";
import { mentionSource } from "./features/mentions.js";
import { promptCommand } from "./features/prompts.js";
import type { ManagerOptions, McpManager, McpRuntime, ServerHandle } from "./manager.js";

/** With no request coming, loading starts this long after activation. */
const IDLE_LOAD_MS = 400;
/** A request being prepared whose response has not begun this long after: load anyway. */
const REQUEST_LOAD_MS = 1_500;
/** What listing tools and prompts may add to a server's startup time, for those waiting on it. */
const LISTING_SLACK_MS = 5_000;

/** One prompt of one server, under the command name it gets (`mcp__<server>__<prompt>`). */
export interface KnownPrompt {
  server: string;
  name: string;
  prompt: Prompt;
}

export class McpSession {
  private idle: NodeJS.Timeout | undefined;
  private loading: Promise<McpManager | undefined> | undefined;
  private loaded: McpManager | undefined;
  private closed = false;
  private readonly invalidators = new Map<string, () => void>();
  /** Server name → the `<server>` part of its names. */
  readonly parts: Map<string, string>;
  /** Server name → its entries' namer (names stay the same from the known inventory to the live one). */
  private readonly namers = new Map<string, Namer>();
  /** Made at start, so a session without servers touches no folder. */
  private known: KnownInventories | undefined;
  /** Server name → what it offered when last listed (in this session, or saved by an earlier one). */
  private readonly remembered = new Map<string, ServerInventory>();
  /** Prompt command name → what it was registered from (to re-register only what changed). */
  private readonly promptCommands = new Map<string, string>();

  constructor(
    private readonly runtime: McpRuntime,
    readonly specs: ServerSpec[],
    private readonly options: ManagerOptions,
  ) {
    this.parts = serverNamer().assign(specs.map((s) => s.name));
    for (const spec of specs) this.namers.set(spec.name, toolNamer(this.parts.get(spec.name)!));
  }

  /** Declares the catalogs now; the client loads on the first request or after the idle delay. */
  start(): void {
    if (this.specs.length === 0 || this.idle) return;
    this.known = new KnownInventories(join(this.runtime.dataDir(), "inventory"));
    for (const spec of this.specs) {
      if (!spec.enabled) continue;
      const known = this.known.read(spec);
      if (known) this.remembered.set(spec.name, known);
      const added = this.runtime.catalogs.add(this.catalogOf(spec));
      if (!added.ok) this.runtime.report("error", `MCP server "${spec.name}": ${added.message}`);
    }
    // `@server:uri` in the prompt: every enabled server's name, connected when one is resolved.
    const mentions = this.runtime.mentions.add(
      mentionSource({
        parts: () => this.specs.filter((s) => s.enabled).map((s) => this.parts.get(s.name)!),
        loaded: () => this.loaded,
        load: () => this.load(),
      }),
    );
    if (!mentions.ok) this.runtime.report("warning", `MCP resource mentions: ${mentions.message}`);
    this.syncPrompts();
    this.idle = setTimeout(() => this.load(), IDLE_LOAD_MS);
    this.idle.unref();
  }

  /**
   * A model request is being prepared: loading waits until its response begins (the request is
   * out; loading blocks the event loop, so it must not hold up the request's own writes), or
   * until a response is this long in coming.
   */
  requestStarting(): void {
    if (this.loading || this.specs.length === 0) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.load(), REQUEST_LOAD_MS);
    this.idle.unref();
  }

  /** The model's response began to arrive: its request is out, so loading cannot delay it. */
  responseStarted(): void {
    if (this.loading || this.specs.length === 0) return;
    void this.load();
  }

  private load(): Promise<McpManager | undefined> {
    clearTimeout(this.idle);
    if (this.loading) return this.loading;
    this.loading = (async () => {
      if (this.closed) return undefined;
      this.runtime.debug("loading the MCP client");
      try {
        const { McpManager } = (await importEsm("@keel/ext-mcp/client")) as typeof import("./client.js");
        if (this.closed) return undefined;
        const manager = new McpManager(this.runtime, this.specs, {
          ...this.options,
          parts: this.parts,
          namers: this.namers,
          invalidate: (server) => {
            this.remember(server);
            this.syncPrompts();
            this.invalidators.get(server)?.();
          },
        });
        this.loaded = manager;
        manager.start();
        return manager;
      } catch (error) {
        this.runtime.report("error", `MCP: the client could not be loaded: ${(error as Error).message}`);
        return undefined;
      }
    })();
    return this.loading;
  }

  /** A server listed something new while connected: keep it for the next session. */
  private remember(name: string): void {
    const manager = this.loaded;
    const server = manager?.get(name);
    if (!manager || !server || server.connection.status().state !== "connected") return;
    const now = manager.snapshot(server);
    if (!now || sameInventory(this.remembered.get(name), now)) return;
    this.remembered.set(name, now);
    this.known?.write(server.spec, now);
  }

  private catalogOf(spec: ServerSpec): ToolCatalog {
    const part = this.parts.get(spec.name)!;
    return {
      id: part,
      group: groupFor(part),
      kind: "tools",
      // discover never waits for the client or a connection (a status change invalidates); only
      // for the re-listing a tools/list_changed started, so the next request carries that change.
      deadlineMs: 1000,
      discover: () => this.inventory(spec),
      subscribe: (invalidate) => {
        this.invalidators.set(spec.name, invalidate);
        return () => this.invalidators.delete(spec.name);
      },
    };
  }

  /** The server's catalog now: as listed in this session, else as last known and still settling. */
  private inventory(spec: ServerSpec): CatalogInventory | Promise<CatalogInventory> {
    const server = this.loaded?.get(spec.name);
    if (server?.connection.hasListed())
      return this.loaded!.listed(spec.name).then((listed) =>
        this.catalogInventory(spec, listed ?? this.remembered.get(spec.name), undefined),
      );
    return this.catalogInventory(spec, this.remembered.get(spec.name), this.pendingOf(spec, server));
  }

  private catalogInventory(
    spec: ServerSpec,
    inventory: ServerInventory | undefined,
    pending: CatalogPending | undefined,
  ): CatalogInventory {
    const entries = inventory
      ? inventoryEntries(spec, inventory, this.namers.get(spec.name)!, this.runner(spec))
      : [];
    return {
      entries,
      ...(inventory?.instructions ? { instructions: inventory.instructions } : {}),
      ...(pending ? { pending } : {}),
    };
  }

  /** Why a server not listed in this session is not settled, and how long its first connect may still take. */
  private pendingOf(spec: ServerSpec, server: ServerHandle | undefined): CatalogPending {
    const startup = spec.startupTimeoutMs + LISTING_SLACK_MS;
    if (!server) return { reason: "still connecting", waitMs: startup };
    const { connection } = server;
    const status = connection.status();
    const error = status.lastError?.message;
    switch (status.state) {
      case "idle":
        return { reason: "still connecting", waitMs: startup };
      case "connecting": {
        // Only a first attempt is worth waiting for; a retry follows a failure.
        if (status.attempt > 0)
          return { reason: `still connecting (retrying${error ? ` after: ${error}` : ""})`, waitMs: 0 };
        const started = connection.attemptStartedAt() ?? Date.now();
        return { reason: "still connecting", waitMs: Math.max(0, started + startup - Date.now()) };
      }
      case "needs-auth":
        return { reason: `needs a login: run \`keel mcp login ${spec.name}\``, waitMs: 0 };
      case "connected":
        return {
          reason: `connected, but its tools could not be listed${error ? `: ${error}` : ""}`,
          waitMs: 0,
        };
      case "closed":
        return { reason: "shut down", waitMs: 0 };
      default:
        return { reason: `unavailable${error ? `: ${error}` : ""}; Keel keeps trying`, waitMs: 0 };
    }
  }

  /** Runs entries on the loaded client, loading it (and connecting the server) first when needed. */
  private runner(spec: ServerSpec): EntryRunner {
    const unloaded = (): ToolResult => ({
      content: [{ type: "text", text: `MCP server "${spec.name}": the MCP client could not be loaded.` }],
      isError: true,
    });
    const withManager = async (run: (manager: McpManager) => Promise<ToolResult>): Promise<ToolResult> => {
      const manager = await this.load();
      return manager ? run(manager) : unloaded();
    };
    return {
      callTool: (tool, args, call: ToolCallContext) =>
        withManager((m) => m.callTool(spec.name, tool, args, call)),
      listResources: (cursor, call) => withManager((m) => m.listResources(spec.name, cursor, call)),
      readResource: (uri, call) => withManager((m) => m.readResource(spec.name, uri, call)),
    };
  }

  /**
   * Every enabled server's prompts, as listed in this session or as last known, under the command
   * names they get: available before any server connects.
   */
  prompts(): KnownPrompt[] {
    const out: KnownPrompt[] = [];
    for (const spec of this.specs) {
      if (!spec.enabled) continue;
      const server = this.loaded?.get(spec.name);
      const listed = server ? this.loaded!.snapshot(server) : undefined;
      const prompts = (listed ?? this.remembered.get(spec.name))?.prompts ?? [];
      const names = toolNamer(this.parts.get(spec.name)!).assign(prompts.map((p) => p.name));
      for (const prompt of prompts) out.push({ server: spec.name, name: names.get(prompt.name)!, prompt });
    }
    return out;
  }

  /**
   * One command per known prompt, added, replaced and removed as what servers offer becomes known
   * (a prompt gone from a server's listing goes; one never listed in this session stays as last known).
   */
  private syncPrompts(): void {
    if (this.closed) return;
    const wanted = new Map(this.prompts().map((known) => [known.name, known] as const));
    for (const [name, key] of this.promptCommands) {
      const known = wanted.get(name);
      if (known && JSON.stringify([known.server, known.prompt]) === key) continue;
      this.runtime.commands.remove(name);
      this.promptCommands.delete(name);
    }
    for (const [name, known] of wanted) {
      if (this.promptCommands.has(name)) continue;
      const added = this.runtime.commands.add(
        promptCommand(name, known.server, known.prompt, (prompt, values, signal) =>
          this.getPrompt(known.server, prompt, values, signal),
        ),
      );
      if (added.ok) this.promptCommands.set(name, JSON.stringify([known.server, known.prompt]));
      else this.runtime.debug(`prompt command /${name} not added: ${added.message}`);
    }
  }

  private async getPrompt(
    server: string,
    prompt: string,
    values: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Result<GetPromptResult, McpFailure>> {
    const manager = await this.load();
    if (!manager) return err({ type: "unavailable", message: "the MCP client could not be loaded" });
    return manager.getPrompt(server, prompt, values, signal);
  }

  /** The manager, loading it now if it is not yet (undefined without servers, or when loading failed). */
  manager(): Promise<McpManager | undefined> {
    if (this.specs.length === 0) return Promise.resolve(undefined);
    return this.load();
  }

  rootsChanged(): void {
    this.loaded?.rootsChanged();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idle);
    await (await this.loading)?.close();
  }
}
