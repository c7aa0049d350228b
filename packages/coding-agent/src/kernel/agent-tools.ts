// What a child agent may use: the parent's tools and catalog entries narrowed by its allow /
// exclude lists, and the system prompt it starts from (its own, or the parent's exact prefix).
import type { AgentTool } from "@keel/agent";
import type { Model } from "@keel/ai";
import type { RunAgentOptions } from "@keel/extension-sdk";
import { EXECUTE_TOOL, type IndexedEntry, SEARCH_TOOLS } from "../host/catalogs.js";
import type { HostView } from "../host/extension-host.js";
import type { SupervisorDeps } from "./agents.js";

export interface ChildTools {
  view: HostView;
  tools: AgentTool[];
  systemPrompt: string;
  /** The prompt to send: the caller's, opened by its instructions when the parent's prefix is shared. */
  prompt: string;
  /** The child starts from the parent's system prompt and tools, so the parent's cache serves it. */
  shares: boolean;
}

/**
 * A parent's tool the child may not use, kept in its list (same name and schema, so the prefix
 * stays the parent's) and refused when called.
 */
function refused(tool: AgentTool): AgentTool {
  return {
    name: tool.name,
    ...(tool.label ? { label: tool.label } : {}),
    description: tool.description,
    parameters: tool.parameters,
    execute: async () => ({
      content: [
        {
          type: "text",
          text: `${tool.name} is not available to this sub-agent; do the work with the tools it has.`,
        },
      ],
      isError: true,
    }),
  };
}

/** Whether a child may use an entry or tool, by its allow / exclude lists (names, refs or groups). */
function listed(list: readonly string[] | undefined, ...names: string[]): boolean {
  return list !== undefined && names.some((n) => list.includes(n));
}

export function childTools(
  d: SupervisorDeps,
  options: RunAgentOptions,
  agent: { agentId: string; title: string },
  model: Model,
): ChildTools {
  // The child's tools: the parent's, narrowed by the allow / exclude lists.
  const { allow, exclude } = options.tools ?? {};
  // A bare name allows an entry only where it stands for that entry alone (as in permission
  // rules): a built-in's name is the built-in, not another group's entry that borrows it. Exclusion
  // by name is always honoured.
  const allowsEntry = (e: IndexedEntry) =>
    (allow === undefined || listed(allow, e.ref, e.group) || (e.bareName && listed(allow, e.name))) &&
    !listed(exclude, e.ref, e.group, e.name);
  const catalogs = d.host.catalogs.narrow(allowsEntry);
  const catalogReachable =
    !d.host.registry.isEmpty &&
    (allow === undefined ||
      allow.some(
        (n) =>
          n === SEARCH_TOOLS ||
          n === EXECUTE_TOOL ||
          n.includes(":") ||
          d.host.registry.groups().includes(n) ||
          d.host.registry.resolve(n) !== undefined,
      ));
  const allowTool = (name: string) => {
    if (listed(exclude, name)) return false;
    if (name === SEARCH_TOOLS || name === EXECUTE_TOOL) return catalogReachable;
    return allow === undefined || allow.includes(name);
  };
  const view = d.host.childView({ agent }, allowTool, catalogs);
  let tools = [...d.builtinTools.filter((t) => allowTool(t.name)), ...view.tools()];
  // A child on the parent's model whose tools are the parent's minus some (no allow list) may
  // start from the parent's exact system prompt and tools: the parent's cached prefix serves
  // it. The tools it may not use stay listed and are refused; its instructions open its prompt.
  const parentModel = d.parent.model();
  const shares =
    options.shareParentPrefix === true &&
    allow === undefined &&
    model.provider === parentModel.provider &&
    model.id === parentModel.id;
  let systemPrompt: string;
  let prompt = options.prompt;
  if (shares) {
    const prefix = d.parent.requestPrefix();
    const own = new Map(tools.map((t) => [t.name, t]));
    tools = prefix.tools.map((t) => own.get(t.name) ?? refused(t));
    systemPrompt = prefix.systemPrompt;
    if (options.instructions?.trim())
      prompt = `<agent-instructions>\n${options.instructions.trim()}\n</agent-instructions>\n\n${options.prompt}`;
  } else {
    systemPrompt = d.systemPromptFor(
      tools.map((t) => t.name),
      options.instructions,
    );
  }
  return { view, tools, systemPrompt, prompt, shares };
}
