// The slash commands an editor offers for a session (available_commands_update): every command the
// kernel knows (built-in, extensions', skills, MCP prompts, custom commands), as it lists them.
// Editors send a chosen command back as prompt text ("/name args"), which the session runs.
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { CodingAgent } from "@keel/coding-agent";

/** Built-in commands that only make sense with a terminal UI's screens (a front end's own, source "host", never reach here). */
const TERMINAL_ONLY = new Set(["quit", "exit", "tree", "resume", "new", "clear"]);

export function availableCommands(agent: Pick<CodingAgent, "commands">): AvailableCommand[] {
  return agent.commands
    .list()
    .filter((c) => c.source.kind !== "host" && !TERMINAL_ONLY.has(c.name))
    .map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    }));
}
