// /thinking: shows or sets how hard the model thinks (a host may offer a picker instead).
import { parseThinkingLevel } from "../../kernel/thinking.js";
import type { BuiltinCommand } from "./spec.js";

export const thinkingCommand: BuiltinCommand = (agent) => ({
  name: "thinking",
  description: "Show or set how hard the model thinks",
  argumentHint: "[off|low|medium|high|…|default]",
  interactive: "thinking-picker",
  run: async (args) => {
    if (args) {
      const level = args === "default" ? undefined : parseThinkingLevel(args);
      if (args !== "default" && level === undefined)
        return {
          error: `Unknown thinking level "${args}": off, minimal, low, medium, high, xhigh, max or default.`,
        };
      const set = agent.setThinking(level);
      if (set.isErr()) return { error: set.error.message };
    }
    const t = agent.thinking();
    const asked = t.level === undefined ? "the model's default" : t.level;
    const said = `Thinking: ${asked} (${t.effort} for ${agent.model().id})${t.note ? `. ${t.note}` : ""}`;
    if (args) return { message: said };
    const takes =
      t.levels.length > 0
        ? `${agent.model().id} takes: ${t.levels.join(", ")} or default.`
        : `${agent.model().id} does not reason.`;
    return { message: `${said}\n${takes}` };
  },
});
