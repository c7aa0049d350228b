// After a compaction the summary replaces the history that held the loaded skills' bodies, so
// they are re-attached in one persisted notice: most recently loaded first, each and all bounded
// (about 5k tokens a skill, 25k in all); what does not fit is named so the model can reload it.
import { loadSkillText } from "./load.js";
import type { SkillSet } from "./skill-set.js";
import type { SkillsState } from "./skill-tool.js";

export const MAX_REATTACH_CHARS_PER_SKILL = 20_000;
export const MAX_REATTACH_CHARS = 100_000;

export interface Reattachment {
  /** The notice text, or undefined when no skill was loaded. */
  text: string | undefined;
  /** The loaded list after the compaction: only what was re-attached is still in context. */
  kept: SkillsState["loaded"];
}

export async function reattachLoaded(
  set: SkillSet,
  loaded: SkillsState["loaded"],
  limits = { perSkill: MAX_REATTACH_CHARS_PER_SKILL, total: MAX_REATTACH_CHARS },
): Promise<Reattachment> {
  if (loaded.length === 0) return { text: undefined, kept: [] };
  await set.get();
  const parts: string[] = [];
  const kept: SkillsState["loaded"] = [];
  const left: string[] = [];
  let total = 0;
  for (const entry of [...loaded].reverse()) {
    const skill = set.find(entry.name);
    if (!skill) {
      left.push(`${entry.name} (no longer installed)`);
      continue;
    }
    const text = await loadSkillText(skill, {
      ...(entry.args !== undefined ? { args: entry.args } : {}),
      maxChars: limits.perSkill,
    });
    if (text.isErr() || total + text.value.length > limits.total) {
      left.push(entry.name);
      continue;
    }
    parts.push(text.value);
    kept.unshift(entry);
    total += text.value.length;
  }
  const lines = ["Skills loaded before the conversation was compacted; their instructions still apply:"];
  lines.push(...parts);
  if (left.length > 0)
    lines.push(`Not re-attached (load again with the Skill tool if needed): ${left.join(", ")}.`);
  return { text: lines.join("\n\n"), kept };
}
