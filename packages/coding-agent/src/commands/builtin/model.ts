// /model: shows the model, or switches to `provider/id` (a host may offer a picker instead).
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const modelCommand: BuiltinCommand = (agent) => ({
  name: "model",
  description: "Show or switch the model",
  argumentHint: "[provider/id]",
  interactive: "model-picker",
  run: async (args) => {
    if (!args) return { message: `Model: ${agent.model().provider}/${agent.model().id}` };
    return outcome(agent.setModel(args).map((m) => ({ message: `Model: ${m.provider}/${m.id}` })));
  },
});
