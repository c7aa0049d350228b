// The resident Skill tool: `{ skill }` loads a skill's instructions, `{ skill, path }` reads one
// of its files. Its description never names a skill, so installing one never changes the tools
// the model is sent (the catalog reaches it through capability notices instead).
import { type ExtensionRuntime, type ToolResult, Type, textResult } from "@keel/extension-sdk";
import { readSkillFile } from "./files.js";
import { loadSkillText } from "./load.js";
import { skillFileText } from "./render.js";
import type { SkillSet } from "./skill-set.js";
import { approvalKey, approvalValue } from "./trust.js";
import type { Skill } from "./types.js";

export const SKILL_TOOL = "Skill";
/** How many loaded skills the session state remembers (for compaction), most recent last. */
export const MAX_REMEMBERED = 32;

export const SkillsStateSchema = Type.Object({
  loaded: Type.Array(Type.Object({ name: Type.String(), args: Type.Optional(Type.String()) })),
});
export interface SkillsState {
  loaded: { name: string; args?: string }[];
}

export interface SkillsInstance {
  set: SkillSet;
  /** Characters the catalog may take in a notice. */
  budget: number;
  /** allowed-tools of a skill a `/skill:` command loaded, applied when its run starts. */
  pendingAllow?: { skill: string; rules: string[] };
}

export type SkillsRuntime = Pick<
  ExtensionRuntime<unknown, SkillsState>,
  "state" | "allowForRun" | "workspace"
>;

export const skillToolParameters = Type.Object({
  skill: Type.String({ description: "The skill's name, as the Skills notice lists it" }),
  path: Type.Optional(
    Type.String({
      description:
        "A file of the skill to read instead, relative to its folder (e.g. references/REFERENCE.md)",
    }),
  ),
});

export const SKILL_TOOL_DESCRIPTION =
  "Load a skill: instructions for a specific kind of task, listed under Skills in the capability notices. " +
  "When a task matches a skill's description, load it first and follow it. The result is the skill's " +
  "instructions and a list of its files; call again with `path` to read one of them (scripts/, references/, assets/).";

/** Records a load (most recent last, bounded) so compaction can re-attach it. */
export function rememberLoaded(runtime: Pick<SkillsRuntime, "state">, name: string, args?: string): void {
  runtime.state.update((s) => ({
    loaded: [...s.loaded.filter((l) => l.name !== name), args ? { name, args } : { name }].slice(
      -MAX_REMEMBERED,
    ),
  }));
}

/**
 * Pre-approves a skill's allowed-tools for the current run; the line saying what happened. A
 * project skill's count only as the user approved them when trusting the project: one written or
 * changed since (by anyone, the model included) pre-approves nothing.
 */
export function applyAllowedTools(
  runtime: Pick<SkillsRuntime, "allowForRun" | "workspace">,
  skill: Skill,
): string | undefined {
  if (skill.allowedTools.length === 0) return undefined;
  if (!skill.root.trusted)
    return `allowed-tools of ${skill.name} not applied: it comes from an untrusted place.`;
  if (skill.root.scope === "project") {
    const approved = runtime.workspace.approved[approvalKey(skill.file, runtime.workspace.projectRoot)];
    if (approved !== approvalValue(skill.allowedTools))
      return `allowed-tools of ${skill.name} not applied: they were not approved when you trusted this project (/trust shows them).`;
  }
  const done = runtime.allowForRun(skill.allowedTools, `skill ${skill.name} (allowed-tools)`);
  return done.ok
    ? `Pre-approved for the rest of this run by the skill: ${skill.allowedTools.join(" ")}`
    : `allowed-tools of ${skill.name} not applied: ${done.message}`;
}

function unknownSkill(name: string, skills: Skill[]): string {
  const visible = skills.filter((s) => !s.disableModelInvocation).map((s) => s.name);
  const near = visible.filter((n) => n.includes(name) || name.includes(n)).slice(0, 10);
  const shown = near.length > 0 ? near : visible.slice(0, 10);
  return (
    `No skill named "${name}".` +
    (shown.length > 0
      ? ` ${near.length > 0 ? "Similar" : "Some"}: ${shown.join(", ")}.`
      : " No skills are installed.") +
    (visible.length > shown.length ? " SearchTools finds the others." : "")
  );
}

export async function runSkillTool(
  args: { skill: string; path?: string },
  instance: SkillsInstance,
  runtime: SkillsRuntime,
): Promise<ToolResult> {
  const { skills } = await instance.set.get();
  const name = args.skill.trim().replace(/^skills:/, "");
  const skill = skills.find((s) => s.name === name);
  if (!skill) return textResult(unknownSkill(name, skills), { skill: name }, true);
  const loadedByUser = runtime.state.get().loaded.some((l) => l.name === skill.name);
  if (skill.disableModelInvocation && !loadedByUser)
    return textResult(
      `The skill "${skill.name}" runs only when the user asks for it (/skill:${skill.name}); it is not loaded by the model.`,
      { skill: skill.name },
      true,
    );
  if (args.path !== undefined) {
    const file = await readSkillFile(skill.dir, args.path);
    if (file.isErr())
      return textResult(
        file.error.message,
        { skill: skill.name, path: args.path, error: file.error.type },
        true,
      );
    return textResult(skillFileText(skill, file.value), {
      skill: skill.name,
      path: args.path,
      size: file.value.size,
    });
  }
  const text = await loadSkillText(skill);
  if (text.isErr()) return textResult(text.error.message, { skill: skill.name }, true);
  rememberLoaded(runtime, skill.name);
  const allowed = applyAllowedTools(runtime, skill);
  return textResult(allowed ? `${text.value}\n${allowed}` : text.value, {
    skill: skill.name,
    file: skill.file,
    ...(allowed ? { allowedTools: skill.allowedTools } : {}),
  });
}
