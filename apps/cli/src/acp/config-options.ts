// A session's modes and config options: the permission mode (ACP's session modes, and a "mode"
// option), the model and the thinking level, read from and set through the kernel.
import type { SessionConfigOption, SessionMode } from "@agentclientprotocol/sdk";
import { modelRef, THINKING_LEVELS } from "@keel/ai";
import type { CodingAgent, PermissionModeName } from "@keel/coding-agent";
import { err, type Result } from "neverthrow";

export const MODES: SessionMode[] = [
  { id: "default", name: "Default", description: "Ask before edits and commands no rule allows" },
  {
    id: "acceptEdits",
    name: "Accept edits",
    description: "Edit workspace files without asking; commands still ask",
  },
  {
    id: "plan",
    name: "Plan",
    description: "Read and plan: nothing is changed (the sandbox lets nothing write)",
  },
  { id: "dontAsk", name: "Don't ask", description: "Never ask: what no rule allows is denied" },
  { id: "bypassPermissions", name: "Bypass permissions", description: "Allow every call without asking" },
];

type Agent = Pick<
  CodingAgent,
  "permissionMode" | "setPermissionMode" | "model" | "models" | "setModel" | "thinking" | "setThinking"
>;

/** "default": the model's own level. */
const LEVELS = ["default", ...THINKING_LEVELS.filter((l) => l !== "none")];

export function configOptions(agent: Agent): SessionConfigOption[] {
  const current = modelRef(agent.model());
  const models = agent.models().filter((m) => m.ref === current || (m.ready && !m.legacy));
  return [
    {
      id: "mode",
      name: "Permission mode",
      category: "mode",
      type: "select",
      currentValue: agent.permissionMode(),
      options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options: models.map((m) => ({ value: m.ref, name: m.name })),
    },
    {
      id: "thinking",
      name: "Thinking",
      category: "thought_level",
      type: "select",
      currentValue: agent.thinking().level ?? "default",
      options: LEVELS.map((l) => ({ value: l, name: l })),
    },
  ];
}

export function setConfigOption(
  agent: Agent,
  configId: string,
  value: string | boolean,
): Result<void, string> {
  if (typeof value !== "string") return err(`${configId} takes one of its listed values.`);
  const done = (r: Result<unknown, { message: string }>) => r.map(() => undefined).mapErr((e) => e.message);
  switch (configId) {
    case "mode":
      return done(agent.setPermissionMode(value as PermissionModeName));
    case "model":
      return done(agent.setModel(value));
    case "thinking":
      if (!LEVELS.includes(value)) return err(`Thinking takes one of: ${LEVELS.join(", ")}.`);
      return done(agent.setThinking(value === "default" ? undefined : (value as never)));
    default:
      return err(`There is no config option ${configId}.`);
  }
}
