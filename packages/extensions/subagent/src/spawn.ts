// SpawnAgent: starts a child from an agent definition. In the foreground it waits for the child and
// answers with its result; in the background it answers with the child's id at once and the result
// arrives later (a notice, or GetAgentResult). Past the host's cap it answers at once, not later.
import {
  type RunAgentOptions,
  type Static,
  type ToolCallContext,
  type ToolResult,
  Type,
  textResult,
} from "@keel/extension-sdk";
import type { SubagentRuntime } from "./children.js";
import { DEFAULT_AGENT } from "./definitions.js";
import { delivered, withChild, withoutChild } from "./delivery.js";
import { chooseModel } from "./models.js";
import { type Activity, resultText } from "./report.js";

export const AGENTS_GROUP = "agents";

export const SpawnParams = Type.Object({
  description: Type.String({
    minLength: 1,
    description: 'A few words on what the agent does (shown to the user), e.g. "Review the parser diff".',
  }),
  prompt: Type.String({
    minLength: 1,
    description:
      "The whole task. The agent sees nothing of this conversation, so say everything it needs: the goal, files, constraints, and what to report back.",
  }),
  agent: Type.Optional(
    Type.String({
      description: `Which agent runs it, by name from the Agents list (default ${DEFAULT_AGENT}).`,
    }),
  ),
  model: Type.Optional(
    Type.String({
      description: "Another model for this agent, as provider/id (default: the agent's, or this session's).",
    }),
  ),
  run_in_background: Type.Optional(
    Type.Boolean({
      description:
        "Start it and get its id at once; go on working. Its result arrives as a notice when it ends, or with GetAgentResult.",
    }),
  ),
});

export const SPAWN_DESCRIPTION =
  "Start a sub-agent: a separate agent with its own context that works on one task and reports back. " +
  "Use it to keep this conversation small on big searches and multi-step side tasks, and call it several " +
  "times in one message to run agents in parallel. The agents you can choose from are listed under " +
  '"Agents" in the capability notices. In the foreground the call returns the agent\'s final message; ' +
  "with run_in_background it returns an agent id at once, and the result arrives later as a notice (or " +
  "with GetAgentResult). Only a few agents run at once: past that the call says what runs and to retry later.";

const randomSuffix = () => Math.random().toString(36).slice(2, 8);

function error(text: string): ToolResult {
  return textResult(text, undefined, true);
}

export async function spawnAgent(
  args: Static<typeof SpawnParams>,
  ctx: ToolCallContext,
  runtime: SubagentRuntime,
): Promise<ToolResult> {
  const children = runtime.instance;
  if (ctx.agent) return error("A sub-agent cannot start agents of its own; do the work yourself.");
  children.refreshDefinitions(runtime);
  const { agents } = children.files.set;
  const name = args.agent?.trim() || DEFAULT_AGENT;
  const definition = agents.get(name);
  if (!definition) return error(`There is no agent "${name}". Agents: ${[...agents.keys()].join(", ")}.`);
  const chosen = chooseModel(args.model ?? definition.model, runtime.models);
  if (chosen.isErr())
    return error(
      `Agent ${name} cannot start: ${chosen.error.message}${args.model ? "" : ` (set in ${definition.path ?? "its definition"})`}.`,
    );
  const model = chosen.value;
  if (model.note) runtime.debug(`${name}: ${model.note}`);
  const background = args.run_in_background ?? definition.background ?? false;
  const agentId = `${name}-${randomSuffix()}`;
  const title = name === DEFAULT_AGENT ? args.description : `${name}: ${args.description}`;
  const config = runtime.config;
  const activity: Activity = { agentId, title, background, turns: 0, startedAt: Date.now() };
  const progress = () =>
    ctx.onUpdate(
      textResult(`${activity.tool ? `▸ ${activity.tool}` : "working"} · turn ${Math.max(activity.turns, 1)}`),
    );
  const options: RunAgentOptions = {
    prompt: args.prompt,
    title,
    agentId,
    detached: background,
    tools: {
      ...(definition.tools ? { allow: definition.tools } : {}),
      exclude: [...config.childExcludedTools, AGENTS_GROUP, ...(definition.disallowedTools ?? [])],
    },
    maxTurns: definition.maxTurns ?? config.maxTurns,
    ...(definition.instructions ? { instructions: definition.instructions } : {}),
    // An agent with the session's tools (no list of its own) starts from the session's own
    // prompt and tools where its model is the session's: the session's cached prefix serves it.
    shareParentPrefix: definition.tools === undefined,
    ...(model.model ? { model: model.model } : {}),
    ...(config.budget.maxTokens !== undefined || config.budget.maxCostUsd !== undefined
      ? { budget: { ...config.budget } }
      : {}),
    onActivity: (a) => {
      if (a.type === "turn_start") activity.turns = a.turn;
      else if (a.type === "tool_start") activity.tool = a.toolName;
      else if (a.type === "tool_end") activity.tool = undefined;
      else if (a.type === "usage") {
        activity.usage = a.usage;
        activity.turns = a.turns;
      }
      children.drawWidget(runtime);
      if (!background) progress();
    },
  };

  // Journaled before the child exists: a crash right after it leaves an entry with no record
  // (nothing owed), never a child this branch does not know it started.
  runtime.state.set(
    withChild(runtime.state.get(), { agentId, title, agent: name, background, delivery: "waiting" }),
  );
  const started = await ctx.runAgent(options);
  if (!started.ok) {
    runtime.state.set(withoutChild(runtime.state.get(), agentId));
    if (started.error.type === "capacity")
      return error(
        `Not started: ${started.error.message} (GetAgentResult with wait_ms waits for a background one; then call SpawnAgent again.)`,
      );
    return error(`Not started: ${started.error.message}`);
  }
  const { run } = started;
  children.live.set(agentId, { run, activity });
  children.drawWidget(runtime);
  void run.result.then((result) => children.ended(runtime, result));

  if (background)
    return textResult(
      `Started background agent ${agentId} (${title}). Keep working: its result arrives as a notice when it ends, ` +
        `or call GetAgentResult { "agent_id": "${agentId}", "wait_ms": … } to wait for it.`,
      { agentId, sessionId: run.sessionId, background: true },
    );
  const result = await run.result;
  const next = delivered(runtime.state.get(), agentId, "returned");
  if (next) runtime.state.set(next);
  return textResult(resultText(result, config.resultChars), result, result.status === "failed");
}
