// The resident SearchTools / ExecuteTool pair, over a view of the catalogs: the whole registry for
// the session, or the part a child agent was allowed. The view also tells the seams which entry
// an ExecuteTool call targets, so permissions and the journal use the entry's own identity.
import type { AgentToolResult, ToolExecutionContext } from "@keel/agent";
import { validateToolArguments } from "@keel/ai";
import type { ExecutableCatalogEntry, ToolCallContext } from "@keel/extension-sdk";
import { Type } from "@sinclair/typebox";
import type { DeclaredTool } from "../tools/declarations.js";
import {
  type CatalogRegistry,
  EXECUTE_TOOL,
  type IndexedEntry,
  SEARCH_TOOLS,
  type Target,
} from "./catalogs.js";
import type { GroupView, Inventory } from "./inventory.js";

export type EntryFilter = (item: IndexedEntry) => boolean;

/** Builds the full tool-call context an entry's execute gets, for the extension that owns it. */
export type ContextFactory = (extensionId: string, loop: ToolExecutionContext) => ToolCallContext;

const error = (text: string): AgentToolResult => ({ content: [{ type: "text", text }], isError: true });

export class CatalogView {
  /**
   * What the seam resolved each admitted ExecuteTool call to, by tool call id. ExecuteTool runs that
   * entry: resolving again after the gate could find one that appeared, moved or changed since.
   */
  private readonly admitted = new Map<string, IndexedEntry | undefined>();

  constructor(
    readonly registry: CatalogRegistry,
    private readonly filter?: EntryFilter,
  ) {}

  /** The entry (or none) the gate judged for this call; ExecuteTool runs exactly that. */
  admit(toolCallId: string, item: IndexedEntry | undefined): void {
    this.admitted.set(toolCallId, item);
  }

  /** Drops an admission whose call never ran (aborted before it started). */
  forget(toolCallId: string): void {
    this.admitted.delete(toolCallId);
  }

  /** A narrower view (a child agent's): entries must pass both filters. */
  narrow(filter: EntryFilter): CatalogView {
    const own = this.filter;
    return new CatalogView(this.registry, own ? (e) => own(e) && filter(e) : filter);
  }

  get isEmpty(): boolean {
    return this.registry.isEmpty;
  }

  refresh(): Promise<void> {
    return this.registry.refresh();
  }

  views(): GroupView[] {
    return this.registry.views(this.filter);
  }

  inventory(): Inventory {
    return this.registry.inventory(this.filter);
  }

  resolve(ref: string): IndexedEntry | undefined {
    const item = this.registry.resolve(ref);
    return item && (!this.filter || this.filter(item)) ? item : undefined;
  }

  /**
   * The entry an ExecuteTool call's arguments name, after a refresh. A name not found whose group
   * (or, for a bare name, any group) is still settling is looked for again once it settled, within
   * the catalog's wait window and the call's signal: a server still connecting is waited for.
   */
  async locate(args: Record<string, unknown>, signal?: AbortSignal): Promise<Target> {
    await this.refresh();
    const first = this.target(args);
    if (first.found || first.ref === "") return first;
    const colon = first.ref.indexOf(":");
    const group = colon > 0 ? first.ref.slice(0, colon) : undefined;
    if (this.registry.pendingGroups(this.filter).length === 0) return first;
    await this.registry.settle((g) => group === undefined || g.group === group, signal, this.filter);
    return this.target(args);
  }

  /** The entry an ExecuteTool call's arguments name (after a refresh by the caller), or the one admitted. */
  target(args: Record<string, unknown>, admitted?: { item: IndexedEntry | undefined }): Target {
    const ref = typeof args.toolRef === "string" ? args.toolRef : "";
    const item = admitted ? admitted.item : this.resolve(ref);
    if (!item) return { found: false, ref };
    const inner =
      typeof args.arguments === "object" && args.arguments !== null && !Array.isArray(args.arguments)
        ? (args.arguments as Record<string, unknown>)
        : {};
    return { found: true, item, executable: item.entry.executable !== false, args: inner };
  }

  residentTools(contextFor: ContextFactory): DeclaredTool[] {
    const search: DeclaredTool = {
      name: SEARCH_TOOLS,
      description:
        "Find on-demand tools (and other catalog entries) by name or purpose. Returns toolRefs and their argument schemas for ExecuteTool.",
      parameters: Type.Object({
        query: Type.String({ description: "A tool name (exact names match first) or what you need it for" }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
      }),
      // It searches what the catalogs already list: nothing outside the session.
      access: "none",
      execute: async (args, context) => {
        const { query, limit } = args as { query: string; limit?: number };
        // A group still settling that lists nothing yet (a server connecting for the first time)
        // is waited for, within its window: its tools are searchable on the first turn.
        await this.registry.settle((g) => g.entries === 0, context.signal, this.filter);
        const hits = this.registry.search(query, limit ?? 8, this.filter);
        const pending = this.registry.pendingGroups(this.filter);
        const found =
          hits.length === 0
            ? `No tools match "${query}".`
            : hits
                .map((h) =>
                  h.entry.executable === false
                    ? `${h.ref} (${h.kind}; not run by ExecuteTool)\n  ${h.description}`
                    : `${h.ref}\n  ${h.description}\n  arguments: ${JSON.stringify((h.entry as ExecutableCatalogEntry).parameters)}`,
                )
                .join("\n\n");
        const text =
          pending.length === 0
            ? found
            : `${found}\n\nNot settled yet (what they list may change; search again later):\n${pending.map((p) => `  ${p.group}: ${p.reason}`).join("\n")}`;
        return {
          content: [{ type: "text", text }],
          details: {
            hits: hits.map((h) => h.ref),
            ...(pending.length > 0 ? { pending: pending.map((p) => p.group) } : {}),
          },
        };
      },
    };
    const execute: DeclaredTool = {
      name: EXECUTE_TOOL,
      description: "Run an on-demand tool found with SearchTools (its toolRef, or its exact name).",
      parameters: Type.Object({
        toolRef: Type.String({ description: "The toolRef from SearchTools, or the tool's exact name" }),
        arguments: Type.Record(Type.String(), Type.Unknown(), {
          description: "Arguments matching the tool's schema",
        }),
      }),
      executionMode: "sequential",
      // No access of its own: each call is judged, journaled and shown as the entry it runs.
      execute: async (args, context) => {
        const admitted = this.admitted.has(context.toolCallId)
          ? { item: this.admitted.get(context.toolCallId) }
          : undefined;
        this.admitted.delete(context.toolCallId);
        // Outside the kernel's seams (no admission) the call resolves its target itself.
        const target = admitted
          ? this.target(args as Record<string, unknown>, admitted)
          : await this.locate(args as Record<string, unknown>, context.signal);
        if (!target.found)
          return error(`Unknown or removed tool "${target.ref}". Search again with SearchTools.`);
        const { item } = target;
        if (!target.executable)
          return error(`${item.ref} is a ${item.kind} entry, not a tool: it is not run by ExecuteTool.`);
        const entry = item.entry as ExecutableCatalogEntry;
        const valid = validateToolArguments(
          { name: item.ref, parameters: entry.parameters as never },
          target.args,
        );
        if (valid.isErr())
          return error(
            `Invalid arguments for ${valid.error.message}. Fix them to match the tool's schema and call it again.`,
          );
        return entry.execute(
          valid.value as never,
          contextFor(item.extensionId, context),
        ) as Promise<AgentToolResult>;
      },
    };
    return [search, execute];
  }
}
