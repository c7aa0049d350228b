// On-demand inventories: tools (run through ExecuteTool), skills, resources, prompts. The model
// learns of them only through capability notices (first the list, then diffs), never through
// the cached prefix; SearchTools finds entries, exact names first.
import type { CatalogEntry } from "./tools.js";

/** What a catalog holds; decides the notice's default wording. */
export type CatalogKind = "tools" | "skills" | "resources" | "prompts" | (string & {});

export interface CatalogNotice {
  /**
   * The heading above this catalog's entries in a notice, e.g. "Skills (load one with the Skill
   * tool):". Default per kind; catalogs with one heading share one section.
   */
  heading?: string;
  /** List each entry with its one-line summary (default false: names only). */
  describe?: boolean;
  /**
   * Characters the entries of this catalog may take in one notice. Entries past it are not
   * listed; the notice says how many were left out (they stay findable with SearchTools).
   */
  budgetChars?: number;
}

/**
 * Said by a catalog whose source cannot tell yet what it holds (an MCP server still connecting,
 * or down): its entries are what it held last time, if anything.
 */
export interface CatalogPending {
  /** A few words the model reads in SearchTools: "still connecting", "needs a login (keel mcp login x)". */
  reason: string;
  /**
   * How long, from this discovery, a settled inventory is worth waiting for when the model needs
   * this group: SearchTools while nothing of it is listed yet, ExecuteTool naming an entry it
   * lacks. Each waits for the next discovery (subscribe's invalidate) at most this long, and never
   * past its own abort. Absent or 0: nothing waits.
   */
  waitMs?: number;
}

/** What `discover` returns: the entries, or the entries plus instructions for the model. */
export type CatalogInventory<E = CatalogEntry> =
  | E[]
  | {
      entries: E[];
      /** Said once, with the first notice that lists this group (bounded by the host). */
      instructions?: string;
      /**
       * Set while the inventory is not settled. An entry the model was told about and missing here
       * is not announced as removed until a settled inventory (no `pending`) comes; entries listed
       * here are announced and run as usual. Invalidate when it settles.
       */
      pending?: CatalogPending;
    };

export interface CatalogContext {
  /** Aborted when the host no longer waits for this discovery (session shutdown). */
  signal: AbortSignal;
}

export interface ToolCatalog<Rt = unknown> {
  /** Unique within the extension. */
  id: string;
  /**
   * The group the model sees; toolRefs are `group:name` and permission rules may name the group
   * or an entry. Unique in the session (a clash is refused with a diagnostic). Letters, digits,
   * `_`, `-`, `.`; default: the extension id for its first declared catalog (or one whose id is
   * the extension id), else `<extension>-<id>` (a second catalog, or one added after activation).
   */
  group?: string;
  /** @deprecated Use `group`. */
  label?: string;
  kind?: CatalogKind;
  notice?: CatalogNotice;
  /**
   * The current inventory. Called when the host first needs it and after each invalidation. A
   * request waits for it at most `deadlineMs`; past that it goes out with the last inventory
   * and the discovery goes on in the background (its result reaches the model in a notice).
   */
  discover(runtime: Rt, context: CatalogContext): CatalogInventory | Promise<CatalogInventory>;
  /** Default 2000 ms. */
  deadlineMs?: number;
  /** Calls `invalidate` whenever the inventory may have changed; returns an unsubscribe function. */
  subscribe?(invalidate: () => void, runtime: Rt): (() => void) | undefined;
}

/** How a described entry is listed in a notice; its length is what it costs of the budget. */
export function noticeLine(name: string, summary: string): string {
  return summary ? `    - ${name}: ${summary}` : `    - ${name}`;
}

/**
 * Which described entries fit a notice's budget, in order, and which are left out. The host lists
 * with this rule, so an extension can tell its user exactly what the model was not shown.
 */
export function fitToBudget<E extends { name: string; summary: string }>(
  entries: readonly E[],
  budgetChars: number | undefined,
): { listed: E[]; cut: E[] } {
  if (budgetChars === undefined) return { listed: [...entries], cut: [] };
  const listed: E[] = [];
  const cut: E[] = [];
  let used = 0;
  for (const entry of entries) {
    const cost = noticeLine(entry.name, entry.summary).length + 1;
    if (cut.length === 0 && used + cost <= budgetChars) {
      listed.push(entry);
      used += cost;
    } else cut.push(entry);
  }
  return { listed, cut };
}
