// The skills extension: a catalog of kind "skills" (names and one-line descriptions reach the
// model only in capability notices, within a budget), the resident Skill tool, `/skill:<name>`
// and `/skills`, live reload from a watch on the skill folders, and loaded skills kept through
// compaction. Everything a skill is made of comes from the pure files beside this one.
import { homedir } from "node:os";
import {
  defineExtension,
  type ExtensionRuntime,
  type Static,
  type ToolCatalog,
  Type,
} from "@keel/extension-sdk";
import { budgetChars, DEFAULT_BUDGET_FRACTION, modelSkills, skillEntry } from "./catalog.js";
import { skillCommands } from "./commands.js";
import { reattachLoaded } from "./compaction.js";
import { skillsListing } from "./listing.js";
import { SkillSet } from "./skill-set.js";
import {
  applyAllowedTools,
  runSkillTool,
  SKILL_TOOL,
  SKILL_TOOL_DESCRIPTION,
  type SkillsInstance,
  type SkillsState,
  SkillsStateSchema,
  skillToolParameters,
} from "./skill-tool.js";
import { projectSkillApprovals, projectSkillsPreview } from "./trust.js";
import { diagnosticLine } from "./types.js";

export const SkillsConfigSchema = Type.Object({
  paths: Type.Array(Type.String(), {
    description: "More user-level skill folders (each holds <name>/SKILL.md), e.g. ~/my-skills",
  }),
  budgetFraction: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    description: "Share of the model's context window the catalog may take in a notice",
  }),
  watch: Type.Boolean({ description: "Reload skills when their folders change" }),
});
export type SkillsConfig = Static<typeof SkillsConfigSchema>;

export const SKILLS_GROUP = "skills";
export const SKILLS_HEADING = "Skills (load one with the Skill tool when a task matches its description):";
export const SKILLS_INSTRUCTIONS =
  "Skills are instructions for specific tasks. Before acting on a task that matches a skill's " +
  'description, call Skill {"skill": "<name>"} and follow it. /skill:<name> messages from the user ' +
  "already carry the skill.";

type Runtime = ExtensionRuntime<SkillsConfig, SkillsState, SkillsInstance>;
type Activation = Omit<ExtensionRuntime<SkillsConfig, SkillsState, never>, "instance">;

function contextWindow(runtime: Pick<Activation, "model">): number | undefined {
  try {
    return runtime.model().contextWindow;
  } catch {
    return undefined;
  }
}

/** The catalog the model learns skills from; added at activation, when the model's window is known. */
function skillsCatalog(instance: SkillsInstance): ToolCatalog {
  return {
    id: "skills",
    group: SKILLS_GROUP,
    kind: "skills",
    notice: { heading: SKILLS_HEADING, describe: true, budgetChars: instance.budget },
    discover: async () => {
      const { skills } = await instance.set.get();
      return { entries: modelSkills(skills).map(skillEntry), instructions: SKILLS_INSTRUCTIONS };
    },
    subscribe: (invalidate) => instance.set.subscribe(invalidate),
  };
}

/** After activation the watch waits this long, or until the first model call has gone out. */
export const WATCH_DELAY_MS = 1000;

function watchSoon(
  runtime: Pick<Activation, "config" | "report">,
  instance: SkillsInstance,
  now = false,
): void {
  if (!runtime.config.watch) return;
  const onError = (message: string) => runtime.report("warning", message);
  if (now) instance.set.watch(onError);
  else instance.set.scheduleWatch(WATCH_DELAY_MS, onError);
}

export const skillsExtension = defineExtension({
  id: "skills",
  description:
    "Agent Skills (SKILL.md folders) from ~/.keel/skills, ~/.agents/skills, ~/.claude/skills and a trusted project's .keel, .agents and .claude skills: a budgeted catalog, the Skill tool, /skill:<name> and /skills, live reload.",
  configuration: {
    scope: "user",
    schema: SkillsConfigSchema,
    default: { paths: [], budgetFraction: DEFAULT_BUDGET_FRACTION, watch: true },
  },
  sessionState: { schema: SkillsStateSchema, default: { loaded: [] } },
  // For the /trust dialog: the project's skills and what their allowed-tools would pre-approve,
  // and those pre-approvals as the items trusting the project approves.
  trustPreview: (project) => projectSkillsPreview(project),
  trustApprovals: (project) => projectSkillApprovals(project),
  lifecycle: {
    async activate(ctx): Promise<SkillsInstance> {
      const set = new SkillSet(
        {
          cwd: ctx.workspace.cwd,
          projectRoot: ctx.workspace.projectRoot,
          trusted: ctx.workspace.trusted,
          keelHome: ctx.workspace.keelHome,
          home: homedir(),
          ...(ctx.workspace.claudeHome ? { claudeHome: ctx.workspace.claudeHome } : {}),
          paths: ctx.config.paths,
          // Extensions after this one are not active yet; their skill folders come at sessionStart.
        },
        { report: (d) => ctx.report(d.level, `skills: ${diagnosticLine(d)}`) },
      );
      const instance: SkillsInstance = {
        set,
        budget: budgetChars(contextWindow(ctx), ctx.config.budgetFraction),
      };
      await set.get();
      const sync = skillCommands(ctx, instance, () => ctx);
      sync();
      // A change rescans before the commands are synced; the catalog rescans on its own request.
      set.subscribe(() => {
        void set.get().then(sync, (e: unknown) => ctx.report("error", `skills: rescan failed: ${String(e)}`));
      });
      watchSoon(ctx, instance);
      const added = ctx.catalogs.add(skillsCatalog(instance));
      if (!added.ok) ctx.report("error", `skills: the catalog was not added: ${added.message}`);
      return instance;
    },
    async deactivate(runtime) {
      await runtime.instance.set.close();
    },
  },
  tools: (tool) => [
    tool({
      name: SKILL_TOOL,
      label: "Skill",
      description: SKILL_TOOL_DESCRIPTION,
      parameters: skillToolParameters,
      // Reads the skill's own files, contained to its folder by the tool (its path is relative to
      // that folder, not the workspace, so it is not declared as a path for the gate to judge).
      access: "read",
      summary: (args) => (args.path ? `${args.skill}: ${args.path}` : args.skill),
      execute: (args, _ctx, runtime) => runSkillTool(args, runtime.instance, runtime),
    }),
  ],
  hooks: {
    // The watch was released when the previous session ended (fork, switch); arm it again.
    sessionStart: (_event, runtime) => {
      runtime.instance.set.setExtensionSkills(runtime.extensionSkills());
      watchSoon(runtime, runtime.instance);
    },
    // The first request is out: set the watch up now rather than competing with it.
    afterModelCall: (_event, runtime) => watchSoon(runtime, runtime.instance, true),
    runStart: (_event, runtime: Runtime) => {
      const pending = runtime.instance.pendingAllow;
      if (!pending) return;
      runtime.instance.pendingAllow = undefined;
      const skill = runtime.instance.set.find(pending.skill);
      const line = skill ? applyAllowedTools(runtime, skill) : undefined;
      if (line && !line.startsWith("Pre-approved")) runtime.report("warning", line);
    },
    compaction: async (_event, runtime) => {
      const { text, kept } = await reattachLoaded(runtime.instance.set, runtime.state.get().loaded);
      if (text === undefined) return;
      runtime.persistNotice(text);
      runtime.state.set({ loaded: kept });
    },
    sessionShutdown: async (_event, runtime) => {
      await runtime.instance.set.stopWatching();
    },
  },
  commands: [
    {
      name: "skills",
      description: "List skills: where each comes from, its size, and whether the model's catalog lists it",
      run: async (_args, runtime) => {
        const discovery = await runtime.instance.set.get();
        return { message: skillsListing(discovery, runtime.instance.budget, runtime.workspace.trusted) };
      },
    },
  ],
});
