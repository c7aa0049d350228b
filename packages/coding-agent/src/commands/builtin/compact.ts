// /compact [instructions]: summarises the history to free context. Its events say it too, so a
// host that shows them may present it quietly ("compact").
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const compactCommand: BuiltinCommand = (agent) => ({
  name: "compact",
  description: "Summarize the history to free context",
  argumentHint: "[instructions]",
  interactive: "compact",
  run: async (args) =>
    outcome(
      (await agent.compact(args || undefined)).map((c) => ({
        message: `Compacted: ~${c.tokensBefore} → ~${c.tokensAfter} tokens.`,
      })),
    ),
});
