// Capability inventories and the notices that tell the model about them. A notice carries only
// what changed since what the model was already told (folded from the journal): a group seen for
// the first time is listed under its catalog's heading, later changes as Added / Removed / Updated.
// A group whose catalog has not settled yet (a server still connecting) removes nothing.
import { fitToBudget, noticeLine } from "@keel/extension-sdk";
import { byCodeUnits } from "./catalog-search.js";

/** Catalog group → its entries, each with a digest that changes when the entry changes. */
export type Inventory = Record<string, { name: string; digest: string }[]>;

/** One catalog group as the notice presents it. */
export interface GroupView {
  group: string;
  heading: string;
  /** List entries with their one-line summaries (within `budgetChars`). */
  describe: boolean;
  budgetChars?: number;
  /** Said with the first notice that lists the group. */
  instructions?: string;
  /** Its catalog has not settled: what it lacks of what the model was told is not gone (yet). */
  pending?: boolean;
  entries: { name: string; digest: string; summary: string }[];
}

export interface InventoryDiff {
  added: { group: string; name: string }[];
  removed: { group: string; name: string }[];
  updated: { group: string; name: string }[];
}

/** The most of a group's instructions a notice carries. */
export const MAX_INSTRUCTIONS_CHARS = 2000;

export function inventoryOf(views: readonly GroupView[]): Inventory {
  const inventory: Inventory = {};
  for (const view of views)
    inventory[view.group] = view.entries.map(({ name, digest }) => ({ name, digest }));
  return inventory;
}

/**
 * The views as far as the model should hear of them now: a pending group keeps every entry the
 * model was told about and the group lacks, as told, so nothing is announced removed (or, when it
 * comes back, added again) before the catalog has settled.
 */
export function withToldKept(told: Inventory, views: readonly GroupView[]): GroupView[] {
  return views.map((view) => {
    if (!view.pending) return view;
    const have = new Set(view.entries.map((e) => e.name));
    const kept = (told[view.group] ?? [])
      .filter((t) => !have.has(t.name))
      .map((t) => ({ name: t.name, digest: t.digest, summary: "" }));
    return kept.length === 0 ? view : { ...view, entries: [...view.entries, ...kept] };
  });
}

export function diffInventory(told: Inventory, current: Inventory): InventoryDiff {
  const diff: InventoryDiff = { added: [], removed: [], updated: [] };
  const groups = new Set([...Object.keys(told), ...Object.keys(current)]);
  for (const group of [...groups].sort()) {
    const before = new Map((told[group] ?? []).map((t) => [t.name, t.digest]));
    const after = new Map((current[group] ?? []).map((t) => [t.name, t.digest]));
    for (const [name, digest] of [...after].sort(([a], [b]) => byCodeUnits(a, b))) {
      const old = before.get(name);
      if (old === undefined) diff.added.push({ group, name });
      else if (old !== digest) diff.updated.push({ group, name });
    }
    for (const name of [...before.keys()].sort()) if (!after.has(name)) diff.removed.push({ group, name });
  }
  return diff;
}

export function isEmptyDiff(diff: InventoryDiff): boolean {
  return diff.added.length + diff.removed.length + diff.updated.length === 0;
}

/** A group's entries as lines: names on one line, or one described entry per line within budget. */
function listing(view: GroupView, names: readonly string[]): string[] {
  const chosen = new Set(names);
  const entries = view.entries.filter((e) => chosen.has(e.name));
  if (!view.describe) return [`  ${view.group}: ${entries.map((e) => e.name).join(", ")}`];
  const { listed, cut } = fitToBudget(entries, view.budgetChars);
  const lines = [`  ${view.group}:`, ...listed.map((e) => noticeLine(e.name, e.summary))];
  if (cut.length > 0)
    lines.push(
      `    (${cut.length} more not listed here for space; SearchTools finds them by name or purpose)`,
    );
  return lines;
}

function bounded(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= MAX_INSTRUCTIONS_CHARS
    ? trimmed
    : `${trimmed.slice(0, MAX_INSTRUCTIONS_CHARS)}… (cut at ${MAX_INSTRUCTIONS_CHARS} characters)`;
}

/**
 * The notice text, or undefined when nothing changed. Groups the model was never told about are
 * listed whole under their heading (with their instructions); groups it knows change by diff.
 */
export function noticeText(told: Inventory, views: readonly GroupView[]): string | undefined {
  const current = inventoryOf(views);
  const diff = diffInventory(told, current);
  if (isEmptyDiff(diff)) return undefined;
  const byGroup = new Map(views.map((v) => [v.group, v]));
  const isNew = (group: string) => (told[group] ?? []).length === 0;

  const lines = ["<capabilities>"];
  const headings = new Map<string, GroupView[]>();
  for (const view of views) {
    if (!isNew(view.group) || view.entries.length === 0) continue;
    headings.set(view.heading, [...(headings.get(view.heading) ?? []), view]);
  }
  for (const [heading, groups] of headings) {
    lines.push(heading);
    for (const view of groups) {
      lines.push(
        ...listing(
          view,
          view.entries.map((e) => e.name),
        ),
      );
      if (view.instructions?.trim())
        lines.push(`  Instructions from ${view.group}: ${bounded(view.instructions)}`);
    }
  }
  const section = (title: string, items: { group: string; name: string }[], describe: boolean) => {
    const known = items.filter((i) => !isNew(i.group));
    if (known.length === 0) return;
    lines.push(`${title}:`);
    const groups = [...new Set(known.map((i) => i.group))];
    for (const group of groups) {
      const names = known.filter((i) => i.group === group).map((i) => i.name);
      const view = byGroup.get(group);
      if (describe && view) lines.push(...listing(view, names));
      else lines.push(`  ${group}: ${names.join(", ")}`);
    }
  };
  section("Added", diff.added, true);
  section("Removed", diff.removed, false);
  section("Updated", diff.updated, true);
  lines.push("</capabilities>");
  return lines.join("\n");
}
