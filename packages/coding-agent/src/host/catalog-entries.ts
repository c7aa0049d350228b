// What a catalog's discover returns, checked and indexed: which entries are valid, each one's
// `group:name` identity (and how it is shown to people), the digest that tells a changed entry
// from an unchanged one, and the one-line summary shown in notices and search results.
import { createHash } from "node:crypto";
import type { CatalogEntry, ExecutableCatalogEntry } from "@keel/extension-sdk";
import { isTypeBoxSchema } from "@keel/extension-sdk";

const ENTRY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * How a catalog entry is shown to people (approvals, transcripts, editors): `group:name`, or the
 * name alone when it already begins with its group (`mcp__docs__search`, not
 * `mcp__docs:mcp__docs__search`). Its identity for rules and the journal stays `group:name`.
 */
export function shownRef(group: string, name: string): string {
  return name.startsWith(group) ? name : `${group}:${name}`;
}

export interface IndexedEntry {
  /** `group:name`: the toolRef, the permission identity, what T1/T2 journal. */
  ref: string;
  extensionId: string;
  group: string;
  name: string;
  kind: string;
  entry: CatalogEntry;
  digest: string;
  summary: string;
  description: string;
  /** Whether the bare name may stand for the entry (unique, and not a built-in tool's name). */
  bareName: boolean;
}

function digestOf(entry: CatalogEntry, summary: string): string {
  if (entry.digest) return entry.digest;
  return createHash("sha256")
    .update(entry.description)
    .update("\0")
    .update(summary)
    .update("\0")
    .update(entry.executable === false ? "listed" : JSON.stringify(entry.parameters ?? null))
    .digest("hex")
    .slice(0, 16);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
}

function entryProblem(entry: CatalogEntry | undefined): string | undefined {
  if (!entry || typeof entry !== "object") return "not an object";
  if (typeof entry.name !== "string" || !ENTRY_PATTERN.test(entry.name))
    return "its name must be 1-128 letters, digits, _ - .";
  if (typeof entry.description !== "string") return "it has no description";
  if (entry.executable === false) return undefined;
  const runnable = entry as ExecutableCatalogEntry;
  if (typeof runnable.execute !== "function") return "it is executable but has no execute()";
  const params = runnable.parameters as unknown;
  if (typeof params !== "object" || params === null || Array.isArray(params))
    return "its parameters are not a schema object";
  if (
    !isTypeBoxSchema(params) &&
    (params as { type?: unknown }).type !== undefined &&
    (params as { type?: unknown }).type !== "object"
  )
    return 'its parameters must describe an object (type "object")';
  return undefined;
}

/** The valid entries of `list` under `slot`'s group, in order; each one left out is reported with why. */
export function indexEntries(
  list: readonly CatalogEntry[],
  slot: { extensionId: string; group: string; kind: string },
  report: (message: string) => void,
): IndexedEntry[] {
  const seen = new Set<string>();
  const entries: IndexedEntry[] = [];
  for (const entry of list) {
    const problem = entryProblem(entry);
    if (problem || seen.has(entry.name)) {
      report(`entry ${JSON.stringify(entry?.name)} left out: ${problem ?? "duplicate name"}`);
      continue;
    }
    seen.add(entry.name);
    const summary = firstLine(entry.summary ?? entry.description);
    entries.push({
      ref: `${slot.group}:${entry.name}`,
      extensionId: slot.extensionId,
      group: slot.group,
      name: entry.name,
      kind: slot.kind,
      entry,
      digest: digestOf(entry, summary),
      summary,
      description: entry.description,
      bareName: false,
    });
  }
  return entries;
}
