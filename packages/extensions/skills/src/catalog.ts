// The model's view of the skills: one non-executable catalog entry per model-invocable skill,
// and the notice budget (about 1% of the context window) with which entries it leaves out, so
// `/skills` can say exactly what the host's notice only counts.
import { createHash } from "node:crypto";
import type { ListedCatalogEntry } from "@keel/extension-sdk";
import type { Skill } from "./types.js";

/** Share of the context window the catalog may take in a notice (Claude Code's default too). */
export const DEFAULT_BUDGET_FRACTION = 0.01;
/** Characters per token, roughly, for English prose. */
export const CHARS_PER_TOKEN = 4;
/** When a model states no context window. */
export const FALLBACK_BUDGET_CHARS = 8000;

export function budgetChars(contextWindow: number | undefined, fraction = DEFAULT_BUDGET_FRACTION): number {
  if (!contextWindow || !Number.isFinite(contextWindow) || contextWindow <= 0) return FALLBACK_BUDGET_CHARS;
  return Math.max(1, Math.floor(contextWindow * fraction * CHARS_PER_TOKEN));
}

/**
 * The catalog entry of a skill. Its digest covers what the model is shown (name and
 * description), so editing a description is an "Updated" notice and editing the body is not:
 * the body reaches the model only when it loads the skill.
 */
export function skillEntry(skill: Skill): ListedCatalogEntry {
  return {
    name: skill.name,
    description: skill.description,
    summary: skill.summary,
    executable: false,
    digest: createHash("sha256")
      .update(skill.name)
      .update("\0")
      .update(skill.description)
      .digest("hex")
      .slice(0, 16),
  };
}

/** Skills the model may load itself, in the order they are listed (by name). */
export function modelSkills(skills: Skill[]): Skill[] {
  return skills.filter((s) => !s.disableModelInvocation);
}

/**
 * Characters one entry takes in a notice: its `name: summary` line. Kept to the host's measure
 * so the entries `/skills` marks as cut are the ones the notice leaves out.
 */
export function entryChars(entry: Pick<ListedCatalogEntry, "name" | "summary" | "description">): number {
  const summary = entry.summary ?? entry.description.split("\n")[0] ?? "";
  return `  ${entry.name}: ${summary}\n`.length;
}

/** Entries in listing order until the budget is spent; the rest are cut. */
export function fitBudget<E extends Pick<ListedCatalogEntry, "name" | "summary" | "description">>(
  entries: E[],
  budget: number,
): { listed: E[]; cut: E[] } {
  const listed: E[] = [];
  const cut: E[] = [];
  let used = 0;
  for (const entry of entries) {
    const chars = entryChars(entry);
    if (cut.length === 0 && used + chars <= budget) {
      listed.push(entry);
      used += chars;
    } else cut.push(entry);
  }
  return { listed, cut };
}
