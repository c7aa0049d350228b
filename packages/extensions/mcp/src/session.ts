// The extension's instance: light, made at activation. It declares one catalog per enabled server
// right away (the kernel fixes its resident tools, SearchTools and ExecuteTool among them, when
// the session starts); the MCP client and the SDK load later, off the path of the first model
// request: once that request is on its way, or after a short idle delay when no request comes
// (a person is typing). Until a server is connected its catalog is empty; a connect invalidates it.
import type { CatalogInventory, ToolCatalog } from "@keel/extension-sdk";
import { groupFor, serverNamer } from "./catalog/names.js";
import type { ServerSpec } from "./config/servers.js";
import { importEsm } from "./esm-import.js";
import { mentionSource } from "./features/mentions.js";
import type { ManagerOptions, McpManager, McpRuntime } from "./manager.js";

/** With no request coming, loading starts this long after activation. */
const IDLE_LOAD_MS = 400;

export class McpSession {
  private idle: NodeJS.Timeout | undefined;
  private loading: Promise<McpManager | undefined> | undefined;
  private loaded: McpManager | undefined;
  private closed = false;
  private readonly invalidators = new Map<string, () => void>();
  /** Server name → the `<server>` part of its names. */
  readonly parts: Map<string, string>;

  constructor(
    private readonly runtime: McpRuntime,
    readonly specs: ServerSpec[],
    private readonly options: ManagerOptions,
  ) {
    this.parts = serverNamer().assign(specs.map((s) => s.name));
  }

  /** Declares the catalogs now; the client loads on the first request or after the idle delay. */
  start(): void {
    if (this.specs.length === 0 || this.idle) return;
    for (const spec of this.specs) {
      if (!spec.enabled) continue;
      const added = this.runtime.catalogs.add(this.catalogOf(spec));
      if (!added.ok) this.runtime.report("error", `MCP server "${spec.name}": ${added.message}`);
    }
    // `@server:uri` in the prompt: answered once a server with resources is connected.
    const mentions = this.runtime.mentions.add(mentionSource(() => this.loaded));
    if (!mentions.ok) this.runtime.report("warning", `MCP resource mentions: ${mentions.message}`);
    this.idle = setTimeout(() => this.load(), IDLE_LOAD_MS);
    this.idle.unref();
  }

  /** A model request is being prepared: load right after it has gone out. */
  requestStarting(): void {
    if (this.loading || this.specs.length === 0) return;
    clearTimeout(this.idle);
    setTimeout(() => this.load(), 0);
  }

  private load(): Promise<McpManager | undefined> {
    clearTimeout(this.idle);
    if (this.loading) return this.loading;
    this.loading = (async () => {
      if (this.closed) return undefined;
      try {
        const { McpManager } = (await importEsm("@keel/ext-mcp/client")) as typeof import("./client.js");
        if (this.closed) return undefined;
        const manager = new McpManager(this.runtime, this.specs, {
          ...this.options,
          parts: this.parts,
          invalidate: (server) => this.invalidators.get(server)?.(),
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

  private catalogOf(spec: ServerSpec): ToolCatalog {
    const part = this.parts.get(spec.name)!;
    return {
      id: part,
      group: groupFor(part),
      kind: "tools",
      // discover never waits for the client or a connection (a connect invalidates); only for the
      // re-listing a tools/list_changed started, so the next request carries that change.
      deadlineMs: 1000,
      discover: (): CatalogInventory | Promise<CatalogInventory> => this.loaded?.inventory(spec.name) ?? [],
      subscribe: (invalidate) => {
        this.invalidators.set(spec.name, invalidate);
        return () => this.invalidators.delete(spec.name);
      },
    };
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
