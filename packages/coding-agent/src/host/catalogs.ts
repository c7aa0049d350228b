// On-demand catalogs: the inventories extensions discover (each under a unique group), the
// `group:name` identity of every entry, discovery with a deadline that goes on in the background,
// and the views (filtered for a child agent) that SearchTools, ExecuteTool and notices read.
// What makes an entry valid, and its digest and summary, are in catalog-entries.ts.
import type { CatalogInventory, ExtensionRuntime, ToolCatalog } from "@keel/extension-sdk";
import { errnoMessage } from "../fs/errno.js";
import { type IndexedEntry, indexEntries } from "./catalog-entries.js";
import { SearchIndex } from "./catalog-search.js";
import { type GroupView, type Inventory, inventoryOf } from "./inventory.js";

export { type IndexedEntry, shownRef } from "./catalog-entries.js";

export const SEARCH_TOOLS = "SearchTools";
export const EXECUTE_TOOL = "ExecuteTool";

const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const DEFAULT_DISCOVER_DEADLINE_MS = 2000;

const DEFAULT_HEADINGS: Record<string, string> = {
  tools: "On-demand tools (find one with SearchTools, run it with ExecuteTool):",
  skills: "Skills (find one with SearchTools):",
  resources: "Resources (find one with SearchTools, read it with ExecuteTool):",
  prompts: "Prompts (find one with SearchTools):",
};

interface Slot {
  extensionId: string;
  catalog: ToolCatalog;
  runtime: ExtensionRuntime;
  group: string;
  kind: string;
  deadlineMs: number;
  entries: IndexedEntry[];
  instructions?: string;
  /** Set while the catalog says its inventory is not settled; `until`: how long waiting is worth it. */
  pending?: { reason: string; until: number };
  /** Called on each invalidation: what waits for a pending group to settle. */
  changed: Set<() => void>;
  dirty: boolean;
  inflight?: { promise: Promise<void>; startedAt: number; controller: AbortController };
  unsubscribe?: () => void;
}

/** What a view resolves a call to: an entry, or why there is none. */
export type Target =
  | { found: true; item: IndexedEntry; executable: boolean; args: Record<string, unknown> }
  | { found: false; ref: string };

export class CatalogRegistry {
  private slots: Slot[] = [];
  private byRef = new Map<string, IndexedEntry>();
  private byName = new Map<string, IndexedEntry[]>();
  private index = new SearchIndex<IndexedEntry>([]);
  private closed = false;
  /** Resident extension tools' names: like built-ins', a bare entry name never stands for them. */
  private readonly residentNames = new Set<string>();

  constructor(
    private readonly report: (extensionId: string, message: string) => void,
    /** Names an entry's bare name must never stand for (built-in and resident tools). */
    private readonly reservedNames: ReadonlySet<string>,
  ) {}

  /** Names of resident tools (known once declarations are validated), so bare names skip them. */
  reserveResident(names: Iterable<string>): void {
    for (const name of names) this.residentNames.add(name);
    this.rebuild();
  }

  get isEmpty(): boolean {
    return this.slots.length === 0;
  }

  groups(): string[] {
    return this.slots.map((s) => s.group);
  }

  /**
   * The group a catalog gets when it names none: the extension's id for its first declared catalog
   * (or one whose id is the extension's), else `<extension>-<catalog id>`. `index` is its place
   * among the declared catalogs; -1 for one added after activation.
   */
  static groupFor(extensionId: string, catalog: ToolCatalog, index: number): string {
    return (
      catalog.group ??
      catalog.label ??
      (catalog.id === extensionId || index === 0 ? extensionId : `${extensionId}-${catalog.id}`)
    );
  }

  /** Why `group` cannot be registered, or undefined when it can. */
  refusal(group: string): string | undefined {
    if (!GROUP_PATTERN.test(group))
      return `catalog group "${group}" is not valid (letters, digits, _ - . ; at most 64)`;
    if (this.reservedNames.has(group)) return `catalog group "${group}" is the name of a built-in tool`;
    const owner = this.slots.find((s) => s.group === group);
    if (owner) return `catalog group "${group}" is already used by extension ${owner.extensionId}`;
    return undefined;
  }

  add(
    extensionId: string,
    catalog: ToolCatalog,
    runtime: ExtensionRuntime,
    group: string,
  ): string | undefined {
    const refused = this.refusal(group);
    if (refused) return refused;
    if (this.slots.some((s) => s.extensionId === extensionId && s.catalog.id === catalog.id))
      return `catalog "${catalog.id}" is already registered by extension ${extensionId}`;
    const slot: Slot = {
      extensionId,
      catalog,
      runtime,
      group,
      kind: catalog.kind ?? "tools",
      deadlineMs: catalog.deadlineMs ?? DEFAULT_DISCOVER_DEADLINE_MS,
      entries: [],
      changed: new Set(),
      dirty: true,
    };
    this.slots.push(slot);
    if (!this.closed) this.subscribe(slot);
    return undefined;
  }

  remove(extensionId: string, catalogId: string): boolean {
    const slot = this.slots.find((s) => s.extensionId === extensionId && s.catalog.id === catalogId);
    if (!slot) return false;
    this.release(slot);
    this.slots = this.slots.filter((s) => s !== slot);
    this.rebuild();
    return true;
  }

  /** Every catalog of one extension goes (it was rolled back or deactivated). */
  removeAll(extensionId: string): void {
    for (const slot of this.slots.filter((s) => s.extensionId === extensionId))
      this.remove(extensionId, slot.catalog.id);
  }

  private subscribe(slot: Slot): void {
    try {
      slot.unsubscribe =
        slot.catalog.subscribe?.(() => {
          slot.dirty = true;
          for (const wake of [...slot.changed]) wake();
        }, slot.runtime) ?? undefined;
    } catch (e) {
      this.report(slot.extensionId, `catalog ${slot.catalog.id}: subscribe failed: ${errnoMessage(e)}`);
    }
  }

  private release(slot: Slot): void {
    try {
      slot.unsubscribe?.();
    } catch (e) {
      this.report(slot.extensionId, `catalog ${slot.catalog.id}: unsubscribe failed: ${errnoMessage(e)}`);
    }
    slot.inflight?.controller.abort();
    for (const wake of [...slot.changed]) wake();
  }

  close(): void {
    this.closed = true;
    for (const slot of this.slots) this.release(slot);
  }

  /**
   * Rediscovers invalidated catalogs. A request waits for a discovery at most its deadline,
   * counted from when that discovery started; past it the last inventory stands and the
   * discovery finishes in the background. A failing discover keeps the last inventory.
   */
  async refresh(): Promise<void> {
    const waits: Promise<unknown>[] = [];
    for (const slot of this.slots) {
      if (slot.dirty && !slot.inflight) this.start(slot);
      const running = slot.inflight;
      if (!running) continue;
      const left = running.startedAt + slot.deadlineMs - Date.now();
      if (left <= 0) continue;
      let timer: NodeJS.Timeout | undefined;
      waits.push(
        Promise.race([running.promise, new Promise((r) => (timer = setTimeout(r, left)))]).finally(() =>
          clearTimeout(timer),
        ),
      );
    }
    await Promise.all(waits);
  }

  private start(slot: Slot): void {
    slot.dirty = false;
    const controller = new AbortController();
    const startedAt = Date.now();
    let warned = false;
    let promise: Promise<void> | undefined;
    // Removed, or the registry closed: what the discovery ends with no longer matters to anyone.
    const gone = () => !this.slots.includes(slot) || controller.signal.aborted;
    promise = (async () => {
      try {
        const inventory = await slot.catalog.discover(slot.runtime, { signal: controller.signal });
        if (gone()) return;
        this.apply(slot, inventory);
        // A waiter that stopped waiting for this discovery (past its deadline) looks again now.
        for (const wake of [...slot.changed]) wake();
      } catch (e) {
        if (!gone())
          this.report(slot.extensionId, `catalog ${slot.catalog.id}: discover failed: ${errnoMessage(e)}`);
      } finally {
        if (slot.inflight?.promise === promise) slot.inflight = undefined;
        if (warned && !gone())
          this.report(
            slot.extensionId,
            `catalog ${slot.catalog.id}: discovery finished after ${Date.now() - startedAt} ms`,
          );
      }
    })();
    slot.inflight = { promise: promise!, startedAt, controller };
    const slow = setTimeout(() => {
      if (slot.inflight?.promise !== promise) return;
      warned = true;
      this.report(
        slot.extensionId,
        `catalog ${slot.catalog.id}: discovery takes longer than ${slot.deadlineMs} ms; requests go on without it`,
      );
    }, slot.deadlineMs);
    slow.unref();
    void promise.finally(() => clearTimeout(slow));
  }

  /** Validates what discover returned and indexes it; bad entries are reported and left out. */
  private apply(slot: Slot, inventory: CatalogInventory): void {
    const list = Array.isArray(inventory) ? inventory : inventory?.entries;
    if (!Array.isArray(list)) {
      this.report(slot.extensionId, `catalog ${slot.catalog.id}: discover returned no entry list`);
      return;
    }
    const entries = indexEntries(list, slot, (message) =>
      this.report(slot.extensionId, `catalog ${slot.catalog.id}: ${message}`),
    );
    slot.entries = entries;
    slot.instructions =
      !Array.isArray(inventory) && typeof inventory.instructions === "string"
        ? inventory.instructions
        : undefined;
    const pending = Array.isArray(inventory) ? undefined : inventory.pending;
    slot.pending =
      pending && typeof pending.reason === "string"
        ? {
            reason: pending.reason,
            until: Date.now() + (Number.isFinite(pending.waitMs) ? Math.max(0, pending.waitMs ?? 0) : 0),
          }
        : undefined;
    this.rebuild();
  }

  /**
   * Waits for the pending groups `which` picks (each with how many of its entries `filter` lets
   * through) to settle: each at most until its own wait window closes, never past `signal`.
   * Every invalidation of one of them rediscovers and looks again.
   */
  async settle(
    which: (group: { group: string; entries: number }) => boolean,
    signal?: AbortSignal,
    filter?: (item: IndexedEntry) => boolean,
  ): Promise<void> {
    for (;;) {
      await this.refresh();
      const now = Date.now();
      const waiting = this.slots.filter(
        (s) =>
          s.pending !== undefined &&
          s.pending.until > now &&
          visibleGroup(s, filter) &&
          which({ group: s.group, entries: filter ? s.entries.filter(filter).length : s.entries.length }),
      );
      if (this.closed || waiting.length === 0 || signal?.aborted) return;
      // Invalidated while the refresh above was under way (a server connected during the
      // discovery): what it found is already old, and that wake-up had no one to hear it.
      if (waiting.some((s) => s.dirty)) continue;
      const until = Math.min(...waiting.map((s) => s.pending!.until));
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          for (const s of waiting) s.changed.delete(done);
          resolve();
        };
        const timer = setTimeout(done, until - now);
        signal?.addEventListener("abort", done, { once: true });
        for (const s of waiting) s.changed.add(done);
      });
    }
  }

  /** The groups whose inventory is not settled, with why (SearchTools names them). */
  pendingGroups(filter?: (item: IndexedEntry) => boolean): { group: string; reason: string }[] {
    return this.slots
      .filter((s) => s.pending !== undefined && visibleGroup(s, filter))
      .map((s) => ({ group: s.group, reason: s.pending!.reason }));
  }

  private rebuild(): void {
    this.byRef = new Map();
    this.byName = new Map();
    for (const slot of this.slots)
      for (const e of slot.entries) {
        this.byRef.set(e.ref, e);
        this.byName.set(e.name, [...(this.byName.get(e.name) ?? []), e]);
      }
    for (const [name, list] of this.byName)
      for (const e of list)
        e.bareName = list.length === 1 && !this.reservedNames.has(name) && !this.residentNames.has(name);
    this.index = new SearchIndex([...this.byRef.values()]);
  }

  /** The groups as notices present them, in registration order. */
  views(filter?: (item: IndexedEntry) => boolean): GroupView[] {
    return this.slots.map((slot) => {
      const notice = slot.catalog.notice ?? {};
      const entries = slot.entries.filter((e) => !filter || filter(e));
      return {
        group: slot.group,
        heading:
          notice.heading ??
          DEFAULT_HEADINGS[slot.kind] ??
          `On-demand ${slot.kind} (find one with SearchTools):`,
        describe: notice.describe === true,
        ...(notice.budgetChars !== undefined ? { budgetChars: notice.budgetChars } : {}),
        ...(slot.instructions ? { instructions: slot.instructions } : {}),
        ...(slot.pending ? { pending: true } : {}),
        entries: entries.map((e) => ({ name: e.name, digest: e.digest, summary: e.summary })),
      };
    });
  }

  /** Group → entries (name and digest): what a notice would tell. */
  inventory(filter?: (item: IndexedEntry) => boolean): Inventory {
    return inventoryOf(this.views(filter));
  }

  /** A toolRef (`group:name`), or a bare name that stands for exactly one entry. */
  resolve(ref: string): IndexedEntry | undefined {
    const exact = this.byRef.get(ref);
    if (exact) return exact;
    const named = this.byName.get(ref);
    return named?.length === 1 && named[0]!.bareName ? named[0] : undefined;
  }

  /** Exact names (or refs) first, then scoring over name and description. */
  search(query: string, limit: number, filter?: (item: IndexedEntry) => boolean): IndexedEntry[] {
    if (!filter) return this.index.search(query, limit);
    return this.index.search(query, this.byRef.size).filter(filter).slice(0, limit);
  }

  get size(): number {
    return this.byRef.size;
  }
}

/**
 * Whether a view sees a group at all: one of its entries passes the view's filter, or the group
 * itself does (judged as an entry with no name of its own, so allow / exclude lists naming the
 * group decide for a group that lists nothing yet).
 */
function visibleGroup(slot: Slot, filter: ((item: IndexedEntry) => boolean) | undefined): boolean {
  if (!filter) return true;
  if (slot.entries.some(filter)) return true;
  return filter({
    ref: "",
    extensionId: slot.extensionId,
    group: slot.group,
    name: "",
    kind: slot.kind,
    entry: { name: "", description: "", executable: false },
    digest: "",
    summary: "",
    description: "",
    bareName: false,
  });
}
