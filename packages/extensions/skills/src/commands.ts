// `/skill:<name> [args]`, one command per user-invocable skill, kept in step with the skill set
// through `runtime.commands.add/remove` as skills come, change and go.
import type { CommandResult, ExtensionCommand, Registration } from "@keel/extension-sdk";
import { loadSkillText } from "./load.js";
import { rememberLoaded, type SkillsInstance, type SkillsRuntime } from "./skill-tool.js";
import type { Skill } from "./types.js";

export const COMMAND_PREFIX = "skill:";
const MAX_COMMAND_DESCRIPTION = 100;

interface Registry {
  /** `runtime.commands.add`: its answer is the SDK's Registration union, read as the SDK shapes it. */
  add(command: ExtensionCommand<never>): Registration;
  remove(name: string): boolean;
}

export interface CommandHost {
  commands: Registry;
  report(level: "info" | "warning" | "error", message: string): void;
}

function describe(skill: Skill): string {
  const s = skill.summary;
  return s.length <= MAX_COMMAND_DESCRIPTION ? s : `${s.slice(0, MAX_COMMAND_DESCRIPTION - 1)}…`;
}

/** What `/skill:<name> args` does: the skill's instructions, arguments filled in, as the prompt. */
export async function runSkillCommand(
  name: string,
  args: string,
  instance: SkillsInstance,
  runtime: Pick<SkillsRuntime, "state">,
): Promise<CommandResult> {
  await instance.set.get();
  const skill = instance.set.find(name);
  if (!skill) return { error: `The skill "${name}" is no longer installed (/skills lists what is).` };
  const text = await loadSkillText(skill, { args });
  if (text.isErr()) return { error: text.error.message };
  rememberLoaded(runtime, skill.name, args.trim() || undefined);
  // A command runs before its run starts, so the rules wait for runStart.
  if (skill.allowedTools.length > 0) instance.pendingAllow = { skill: skill.name, rules: skill.allowedTools };
  return { prompt: text.value };
}

/** Keeps one command per user-invocable skill; returns a function that re-syncs after a change. */
export function skillCommands(
  host: CommandHost,
  instance: SkillsInstance,
  runtime: () => Pick<SkillsRuntime, "state">,
): () => void {
  const registered = new Map<string, string>();
  const refused = new Set<string>();
  return () => {
    const skills = instance.set.peek()?.skills ?? [];
    const wanted = new Map(skills.filter((s) => s.userInvocable).map((s) => [s.name, s] as const));
    for (const [name, description] of registered) {
      const skill = wanted.get(name);
      if (skill && describe(skill) === description) continue;
      host.commands.remove(`${COMMAND_PREFIX}${name}`);
      registered.delete(name);
    }
    for (const [name, skill] of wanted) {
      if (registered.has(name)) continue;
      const added = host.commands.add({
        name: `${COMMAND_PREFIX}${name}`,
        description: describe(skill),
        source: { kind: "skill", owner: name },
        ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}),
        run: (args: string) => runSkillCommand(name, args, instance, runtime()),
      });
      if (added.ok) registered.set(name, describe(skill));
      else if (!refused.has(name)) {
        refused.add(name);
        host.report("warning", `/skill:${name} not added: ${added.message}`);
      }
    }
  };
}
