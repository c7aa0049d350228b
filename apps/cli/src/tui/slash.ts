// A `/command` typed in the TUI: read from the agent's one registry, shown through the command's
// presentation when the TUI has it, otherwise run headless like every other host does.
import { oneLine } from "../format.js";
import type { Controller } from "./controller.js";
import { PRESENTERS, showOutcome } from "./presenters.js";

export async function runSlash(c: Controller, text: string): Promise<void> {
  const parsed = c.kernel.parseCommandLine(text);
  const agent = c.agent;
  if (!parsed || !agent) return c.store.note("error", `Not a command: ${oneLine(text, 40)}`);
  c.store.transcript.note("dim", `› ${oneLine(text, 100)}`);
  const headless = () => agent.commands.run(text);
  const presentation = agent.commands.get(parsed.name)?.interactive;
  const present = presentation !== undefined ? PRESENTERS[presentation] : undefined;
  if (present) return present(c, parsed.args, headless);
  await showOutcome(c, await headless());
}
