// The model's view of the skills: one non-executable catalog entry per model-invocable skill, and
// the notice budget (about 1% of the context window). Which entries the budget leaves out is the
// SDK's `fitToBudget`, the rule the host lists by, so `/skills` names exactly what it counts.
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
