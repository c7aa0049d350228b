// The slash commands an editor offers for a session (available_commands_update): every command the
// kernel knows (built-in, extensions', skills, MCP prompts, custom commands), as it lists them, but
// those whose spec says they need a terminal UI. Editors send a chosen command back as prompt text
// ("/name args"), which the session runs.
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { CodingAgent } from "@keel/coding-agent";

export function availableCommands(agent: Pick<CodingAgent, "commands">): AvailableCommand[] {
  return agent.commands
    .list()
    .filter((c) => c.needsTerminal !== true)
    .map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    }));
}
