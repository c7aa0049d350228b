// On-demand tool catalogs: the inventories extensions discover, the stable toolRefs the model
// uses, and the resident SearchTools / ExecuteTool pair that reaches them.
import { createHash } from "node:crypto";
import type { AgentTool } from "@keel/agent";
import { validateToolArguments } from "@keel/ai";
import type { CatalogEntry, ExtensionRuntime, ToolCatalog } from "@keel/extension-sdk";
import { Type } from "@sinclair/typebox";
import { SearchIndex } from "./catalog-search.js";
import type { Inventory } from "./inventory.js";

interface IndexedEntry {
  ref: string;
  group: string;
  entry: CatalogEntry;
  digest: string;
  name: string;
  description: string;
}

interface CatalogSlot {
  extensionId: string;
  catalog: ToolCatalog;
  runtime: ExtensionRuntime;
  group: string;
  dirty: boolean;
  entries: IndexedEntry[];
  unsubscribe?: () => void;
}

export interface SearchHit {
  toolRef: string;
  description: string;
  parameters: unknown;
}

export const SEARCH_TOOLS = "SearchTools";
export const EXECUTE_TOOL = "ExecuteTool";

function digestOf(entry: CatalogEntry): string {
  if (entry.digest) return entry.digest;
  return createHash("sha256")
    .update(entry.description)
    .update("\0")
    .update(JSON.stringify(entry.parameters))
    .digest("hex")
    .slice(0, 16);
}

export class CatalogRegistry {
  private readonly slots: CatalogSlot[] = [];
  private byRef = new Map<string, IndexedEntry>();
  private index = new SearchIndex<IndexedEntry>([]);

  constructor(private readonly report: (extensionId: string, message: string) => void) {}

  get isEmpty(): boolean {
    return this.slots.length === 0;
  }

  add(extensionId: string, catalog: ToolCatalog, runtime: ExtensionRuntime): void {
    const group =
      catalog.label ?? (catalog.id === extensionId ? extensionId : `${extensionId}/${catalog.id}`);
    const slot: CatalogSlot = { extensionId, catalog, runtime, group, dirty: true, entries: [] };
    this.slots.push(slot);
  }

  /** Starts change subscriptions (after activation). */
  subscribeAll(): void {
    for (const slot of this.slots) {
      try {
        slot.unsubscribe =
          slot.catalog.subscribe?.(() => {
            slot.dirty = true;
          }, slot.runtime) ?? undefined;
      } catch (e) {
        this.report(
          slot.extensionId,
          `catalog ${slot.catalog.id}: subscribe failed: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  close(): void {
    for (const slot of this.slots) slot.unsubscribe?.();
  }

  /** Rediscovers invalidated catalogs. A failing discover keeps the last known inventory. */
  async refresh(): Promise<void> {
    const dirty = this.slots.filter((s) => s.dirty);
    if (dirty.length === 0) return;
    await Promise.all(
      dirty.map(async (slot) => {
        slot.dirty = false;
        try {
          const entries = await slot.catalog.discover(slot.runtime);
          slot.entries = entries.map((entry) => ({
            ref: `${slot.group}:${entry.name}`,
            group: slot.group,
            entry,
            digest: digestOf(entry),
            name: entry.name,
            description: entry.description,
          }));
        } catch (e) {
          this.report(
            slot.extensionId,
            `catalog ${slot.catalog.id}: discover failed: ${e instanceof Error ? e.message : String(e)}`,
          );
        }
      }),
    );
    this.byRef = new Map(this.slots.flatMap((s) => s.entries.map((e) => [e.ref, e] as const)));
    this.index = new SearchIndex([...this.byRef.values()]);
  }

  inventory(): Inventory {
    const inventory: Inventory = {};
    for (const slot of this.slots) {
      inventory[slot.group] = slot.entries.map((e) => ({ name: e.entry.name, digest: e.digest }));
    }
    return inventory;
  }

  resolve(toolRef: string): CatalogEntry | undefined {
    return this.byRef.get(toolRef)?.entry;
  }

  /** Exact names (or refs) first, then scoring over name and description. */
  search(query: string, limit = 8): SearchHit[] {
    return this.index.search(query, limit).map((e) => ({
      toolRef: e.ref,
      description: e.entry.description,
      parameters: e.entry.parameters,
    }));
  }

  /** The resident pair the model uses to reach catalog tools. */
  residentTools(): AgentTool[] {
    const search: AgentTool = {
      name: SEARCH_TOOLS,
      description:
        "Find on-demand tools by name or purpose. Returns toolRefs and their argument schemas for ExecuteTool.",
      parameters: Type.Object({
        query: Type.String({ description: "Tool name or what you need it for" }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
      }),
      execute: async (args) => {
        const { query, limit } = args as { query: string; limit?: number };
        await this.refresh();
        const hits = this.search(query, limit);
        const text =
          hits.length === 0
            ? `No tools match "${query}".`
            : hits
                .map((h) => `${h.toolRef}\n  ${h.description}\n  arguments: ${JSON.stringify(h.parameters)}`)
                .join("\n\n");
        return { content: [{ type: "text", text }], details: { hits: hits.map((h) => h.toolRef) } };
      },
    };
    const execute: AgentTool = {
      name: EXECUTE_TOOL,
      description: "Run an on-demand tool found with SearchTools.",
      parameters: Type.Object({
        toolRef: Type.String({ description: "The toolRef from SearchTools" }),
        arguments: Type.Record(Type.String(), Type.Unknown(), {
          description: "Arguments matching the tool's schema",
        }),
      }),
      executionMode: "sequential",
      sideEffects: true,
      execute: async (args, context) => {
        const { toolRef, arguments: toolArgs } = args as {
          toolRef: string;
          arguments: Record<string, unknown>;
        };
        await this.refresh();
        const entry = this.resolve(toolRef);
        if (!entry) {
          return {
            content: [
              { type: "text", text: `Unknown or removed tool "${toolRef}". Search again with SearchTools.` },
            ],
            isError: true,
          };
        }
        const valid = validateToolArguments(entry, toolArgs);
        if (valid.isErr()) return { content: [{ type: "text", text: valid.error.message }], isError: true };
        return entry.execute(valid.value as never, context);
      },
    };
    return [search, execute];
  }

  /** The catalog entry an ExecuteTool call targets (for permissions and journaling). */
  target(
    args: Record<string, unknown>,
  ): { name: string; sideEffects: boolean; args: Record<string, unknown> } | undefined {
    const ref = typeof args.toolRef === "string" ? args.toolRef : undefined;
    const entry = ref ? this.resolve(ref) : undefined;
    if (!entry) return undefined;
    const inner =
      typeof args.arguments === "object" && args.arguments !== null
        ? (args.arguments as Record<string, unknown>)
        : {};
    return { name: entry.name, sideEffects: entry.sideEffects ?? false, args: inner };
  }
}
