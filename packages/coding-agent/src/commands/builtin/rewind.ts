// /rewind [count]: undoes the last prompt(s) and what followed (a host may ask which files to restore).
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const rewindCommand: BuiltinCommand = (agent) => ({
  name: "rewind",
  description: "Undo the last prompt(s) and what followed",
  argumentHint: "[count]",
  interactive: "rewind-restore",
  run: async (args) => {
    const count = args ? Number.parseInt(args, 10) : 1;
    if (!Number.isInteger(count) || count < 1) return { error: "Usage: /rewind [count ≥ 1]" };
    return outcome(
      (await agent.rewind(count)).map((r) => ({
        message: `Rewound ${count} prompt${count === 1 ? "" : "s"}.${r.prompt ? ` Last prompt: ${r.prompt}` : ""}`,
      })),
    );
  },
});
