// Capability inventories and the notices that tell the model about them. A notice carries only
// what changed since what the model was already told (folded from the journal).

/** Catalog label → its tools, each with a digest that changes when the tool changes. */
export type Inventory = Record<string, { name: string; digest: string }[]>;

export interface InventoryDiff {
  added: { group: string; name: string }[];
  removed: { group: string; name: string }[];
  updated: { group: string; name: string }[];
}

export function diffInventory(told: Inventory, current: Inventory): InventoryDiff {
  const diff: InventoryDiff = { added: [], removed: [], updated: [] };
  const groups = new Set([...Object.keys(told), ...Object.keys(current)]);
  for (const group of [...groups].sort()) {
    const before = new Map((told[group] ?? []).map((t) => [t.name, t.digest]));
    const after = new Map((current[group] ?? []).map((t) => [t.name, t.digest]));
    for (const [name, digest] of [...after].sort(([a], [b]) => a.localeCompare(b))) {
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

function grouped(items: { group: string; name: string }[]): string {
  const byGroup = new Map<string, string[]>();
  for (const { group, name } of items) byGroup.set(group, [...(byGroup.get(group) ?? []), name]);
  return [...byGroup].map(([group, names]) => `  ${group}: ${names.join(", ")}`).join("\n");
}

/**
 * The notice text, or undefined when nothing changed. The first notice (nothing told yet) lists
 * names grouped per catalog; later ones list only Added / Removed / Updated.
 */
export function noticeText(told: Inventory, current: Inventory): string | undefined {
  const diff = diffInventory(told, current);
  if (isEmptyDiff(diff)) return undefined;
  const toldNothing = Object.values(told).every((tools) => tools.length === 0);
  const lines = ["<capabilities>"];
  if (toldNothing) {
    lines.push("On-demand tools (find one with SearchTools, run it with ExecuteTool):");
    lines.push(grouped(diff.added));
  } else {
    if (diff.added.length > 0) lines.push(`Added:\n${grouped(diff.added)}`);
    if (diff.removed.length > 0) lines.push(`Removed:\n${grouped(diff.removed)}`);
    if (diff.updated.length > 0) lines.push(`Updated:\n${grouped(diff.updated)}`);
  }
  lines.push("</capabilities>");
  return lines.join("\n");
}
