// The TUI's own commands (source "host"): what needs the process or a session swap. They are
// registered with each agent the TUI opens, before its extensions load, so their names are reserved.
import type { CommandSpec } from "@keel/extension-sdk";
import type { Controller } from "./controller.js";
import { pickSession } from "./presenters.js";

const HOST = { kind: "host" } as const;
/** Each ends the process or swaps the session on screen: nothing an editor's session can do. */
const TERMINAL = { source: HOST, needsTerminal: true } as const;

export function tuiCommands(c: Controller): CommandSpec[] {
  const quit: Omit<CommandSpec, "name"> = {
    description: "Exit",
    ...TERMINAL,
    run: async () => {
      c.exit(0);
      return {};
    },
  };
  const startNew: CommandSpec["run"] = async () => {
    // The swap closes this agent (its registry included): what it says shows under the new one.
    if (await c.swap({ mode: "new" })) c.store.note("success", "Started a new session.");
    return {};
  };
  return [
    { name: "new", description: "Start a new session", ...TERMINAL, run: startNew },
    {
      name: "clear",
      description: "Start a new session (the conversation so far stays saved)",
      ...TERMINAL,
      run: startNew,
    },
    {
      name: "resume",
      description: "Resume another session of this project",
      argumentHint: "[session file]",
      ...TERMINAL,
      run: async (args) => {
        const path = args || (await pickSession(c));
        if (path) await c.swap({ mode: "resume", session: path });
        return {};
      },
    },
    { name: "quit", ...quit },
    { name: "exit", ...quit, description: "Exit (as /quit)" },
  ];
}
