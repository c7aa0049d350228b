// /help: every command of the registry, as it is now (a host adds its own key help through the
// "help" presentation).
import type { BuiltinCommand } from "./spec.js";

export const helpCommand: BuiltinCommand = (agent) => ({
  name: "help",
  description: "List commands",
  interactive: "help",
  run: async () => ({
    message: agent.commands
      .list()
      .map((c) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""} — ${c.description}`)
      .join("\n"),
  }),
});
