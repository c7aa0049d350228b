// The subagent extension: SpawnAgent and GetAgentResult (resident), the agent list as a catalog of
// kind "agents" (so it reaches the model in capability notices, never by editing the prefix), the
// hooks that deliver background results and keep the widget drawn, and /agents.
import { type CatalogEntry, defineExtension } from "@keel/extension-sdk";
import { agentFolders, projectAgentsPreview } from "./agent-files.js";
import { Children } from "./children.js";
import { agentsCommand } from "./commands.js";
import { DEFAULT_CONFIG, SubagentConfig } from "./config.js";
import type { AgentDefinition } from "./definitions.js";
import { SubagentState } from "./delivery.js";
import { GET_RESULT_DESCRIPTION, GetResultParams, getAgentResult } from "./get-result.js";
import { AGENTS_GROUP, SPAWN_DESCRIPTION, SpawnParams, spawnAgent } from "./spawn.js";

function catalogEntry(definition: AgentDefinition): CatalogEntry {
  const line = definition.description.replace(/\s+/g, " ");
  return {
    name: definition.name,
    description: definition.description,
    summary: line.length > 200 ? `${line.slice(0, 199)}…` : line,
    executable: false,
  };
}

export const subagentExtension = defineExtension({
  id: "subagent",
  description: "Sub-agents: SpawnAgent (parallel and background), GetAgentResult, custom agents, /agents.",
  configuration: { scope: "user", schema: SubagentConfig, default: DEFAULT_CONFIG },
  sessionState: { schema: SubagentState, default: { children: [] } },
  // Read only when the user is about to trust the project, to show what its agents would be.
  trustPreview: (project) => projectAgentsPreview(project),
  lifecycle: {
    activate: (ctx) => {
      const children = new Children(agentFolders(ctx.workspace));
      children.refreshDefinitions(ctx);
      return children;
    },
  },
  tools: (tool) => [
    tool({
      name: "SpawnAgent",
      label: "Agent",
      description: SPAWN_DESCRIPTION,
      parameters: SpawnParams,
      // The child's own tool calls are judged one by one under this session's permissions.
      access: "none",
      summary: (args) => args.description,
      execute: (args, ctx, runtime) => spawnAgent(args, ctx, runtime),
    }),
    tool({
      name: "GetAgentResult",
      label: "Agent result",
      description: GET_RESULT_DESCRIPTION,
      parameters: GetResultParams,
      access: "none",
      summary: (args) => args.agent_id,
      execute: (args, ctx, runtime) => getAgentResult(args, ctx, runtime),
    }),
  ],
  catalogs: [
    {
      id: "agents",
      group: AGENTS_GROUP,
      kind: "agents",
      notice: {
        heading: 'Agents (start one with SpawnAgent { "agent": "<name>", … }):',
        describe: true,
        budgetChars: 4_000,
      },
      discover: (runtime) => [...runtime.instance.files.set.agents.values()].map(catalogEntry),
      subscribe: (invalidate, runtime) => {
        runtime.instance.invalidate = invalidate;
        return () => {
          runtime.instance.invalidate = () => {};
        };
      },
    },
  ],
  hooks: {
    sessionStart: (_event, runtime) => {
      runtime.instance.refreshDefinitions(runtime);
      runtime.instance.drawWidget(runtime);
      runtime.instance.reconcile(runtime);
    },
    runStart: (_event, runtime) => runtime.instance.runStarted(),
    turnStart: (_event, runtime) => {
      // A definition added or edited since the last request reaches the model in this one's notice.
      runtime.instance.refreshDefinitions(runtime);
      runtime.instance.turnStarting(runtime);
    },
    runEnd: (_event, runtime) => runtime.instance.runEnded(runtime),
    // Children are stopped before this (the kernel does it); the widget goes with the last of them.
    sessionShutdown: (_event, runtime) => runtime.instance.drawWidget(runtime),
  },
  commands: [
    {
      name: "agents",
      description: "Sub-agents: running and ended ones, the agents you can start; /agents stop <id>",
      argumentHint: "[<id> | stop <id>]",
      run: (args, runtime) => {
        runtime.instance.refreshDefinitions(runtime);
        return agentsCommand(args, runtime);
      },
    },
  ],
});
