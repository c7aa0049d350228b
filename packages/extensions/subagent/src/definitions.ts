// Agent definitions: markdown files with front matter (Keel's and Claude Code's format, which is
// the same one), parsed into plain values, and the two built-in agents. Pure: no file system here.
import { parseFrontMatter } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";

export type DefinitionSource = "builtin" | "user" | "project" | "claude";

export interface AgentDefinition {
  /** What SpawnAgent's `agent` names: lowercase letters, digits and dashes. */
  name: string;
  /** When to use it: the line the model sees in the agent list. */
  description: string;
  /** Only these tools (names, catalog toolRefs or groups); undefined: the parent's tools. */
  tools?: string[];
  /** Never these tools. */
  disallowedTools?: string[];
  /** As written: `provider/id`, a bare model id, `sonnet` / `opus` / `haiku`, or absent for the parent's. */
  model?: string;
  maxTurns?: number;
  /** Always run in the background (Claude Code's `background: true`). */
  background?: boolean;
  /** The body: added to the child's system prompt. */
  instructions: string;
  source: DefinitionSource;
  /** The file it came from (built-ins have none). */
  path?: string;
  /** What was read but has no effect here, said in /agents (e.g. `permissionMode`). */
  notes: string[];
}

export interface InvalidDefinition {
  type: "invalid_definition";
  path: string;
  message: string;
}

export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Front-matter fields Claude Code defines that Keel reads but does not act on, with why. */
const NOT_USED: Record<string, string> = {
  permissionMode: "children run under the session's permission mode and rules, never another",
  skills: "skills are loaded through the Skill tool, not preloaded",
  mcpServers: "children get the session's MCP servers",
  hooks: "hooks come from the session's config and extensions",
  memory: "not supported",
  effort: "not supported",
  isolation: "children work in the session's directory",
  color: "not shown",
  initialPrompt: "SpawnAgent's prompt is the first message",
};
const USED = new Set(["name", "description", "tools", "disallowedTools", "model", "maxTurns", "background"]);

/**
 * Agent files read as leniently as Claude Code reads them: no front matter is all body (then the
 * description is missing), and YAML that breaks only on an unquoted `: ` inside a value (a
 * description with `Examples: user: "…"`) is read with those values quoted, with a note.
 */
const FRONT_MATTER = { required: false, lenient: true } as const;

/** `Read, Grep` or `[Read, Grep]` → names; `Agent(x)` / `Task(x)` entries are dropped with a note. */
function toolList(value: unknown, field: string, notes: string[]): string[] | string {
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
  if (!items || items.some((i) => typeof i !== "string"))
    return `${field} must be a list of tool names or a comma-separated string`;
  const names: string[] = [];
  for (const raw of items as string[]) {
    const item = raw.trim();
    if (!item) continue;
    const spawning = /^(Agent|Task)(\(.*\))?$/.exec(item);
    if (spawning) {
      notes.push(`${field}: ${item} has no effect (child agents do not start agents)`);
      continue;
    }
    const open = item.indexOf("(");
    if (open > 0) {
      notes.push(`${field}: ${item} is read as ${item.slice(0, open)} (the rule part is for permissions)`);
      names.push(item.slice(0, open).trim());
    } else names.push(item);
  }
  return names;
}

/** Parses one definition file. `fallbackName` (the file's stem) names it when front matter does not. */
export function parseDefinition(
  text: string,
  path: string,
  source: Exclude<DefinitionSource, "builtin">,
  fallbackName: string,
): Result<AgentDefinition, InvalidDefinition> {
  const invalid = (message: string) => err({ type: "invalid_definition" as const, path, message });
  const parsed = parseFrontMatter(text, FRONT_MATTER);
  if (parsed.isErr()) return invalid(`its front matter could not be read: ${parsed.error.message}`);
  const { data, body } = parsed.value;
  const notes: string[] = parsed.value.repaired ? [`front matter ${parsed.value.repaired}`] : [];
  const name = data.name === undefined ? fallbackName : data.name;
  if (typeof name !== "string" || !NAME_PATTERN.test(name))
    return invalid(`name ${JSON.stringify(name)} must be lowercase letters, digits and dashes`);
  if (typeof data.description !== "string" || !data.description.trim())
    return invalid("it needs a description (when to use the agent): the model chooses agents by it");
  const definition: AgentDefinition = {
    name,
    description: data.description.trim(),
    instructions: body,
    source,
    path,
    notes,
  };
  for (const field of ["tools", "disallowedTools"] as const) {
    if (data[field] === undefined) continue;
    const list = toolList(data[field], field, notes);
    if (typeof list === "string") return invalid(list);
    definition[field] = list;
  }
  if (data.model !== undefined) {
    if (typeof data.model !== "string" || !data.model.trim())
      return invalid("model must be provider/id, a model id, inherit, sonnet, opus or haiku");
    if (data.model.trim() !== "inherit") definition.model = data.model.trim();
  }
  if (data.maxTurns !== undefined) {
    if (typeof data.maxTurns !== "number" || !Number.isInteger(data.maxTurns) || data.maxTurns < 1)
      return invalid("maxTurns must be a whole number of turns, at least 1");
    definition.maxTurns = data.maxTurns;
  }
  if (data.background !== undefined) {
    if (typeof data.background !== "boolean") return invalid("background must be true or false");
    definition.background = data.background;
  }
  for (const key of Object.keys(data)) {
    if (USED.has(key)) continue;
    notes.push(`${key}: ${NOT_USED[key] ?? "not a field Keel knows"}`);
  }
  return ok(definition);
}

const REPORT =
  "Your final message is handed back to the agent that started you as your whole answer: make it complete and self-contained (what you found or did, file paths, what is left open).";

/** The agents every session has; a definition file with the same name replaces one. */
export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    name: "general-purpose",
    description:
      "General agent for multi-step tasks: research, searching code, making changes. Has the session's tools.",
    instructions: `You are a sub-agent working on one task for another agent. Do the task fully with the tools you have. ${REPORT}`,
    source: "builtin",
    notes: [],
  },
  {
    name: "explore",
    description:
      "Read-only explorer: finds files, searches and reads code to answer a question. Cannot change anything.",
    tools: ["Read", "Grep", "Glob", "LS"],
    instructions: `You are a read-only explorer working for another agent: find and read what answers its question, quickly and thoroughly. You cannot modify anything. ${REPORT}`,
    source: "builtin",
    notes: [],
  },
];

export const DEFAULT_AGENT = "general-purpose";
