// /session: the session's id, file, model, usage and context fill.
import type { BuiltinCommand } from "./spec.js";

export const sessionCommand: BuiltinCommand = (agent) => ({
  name: "session",
  description: "Show session id, file, usage and context",
  run: async () => {
    const usage = agent.usage();
    const ctx = agent.contextUsage();
    return {
      message: [
        `Session: ${agent.sessionFile ? agent.sessionId : "not saved (--no-session)"}`,
        `File: ${agent.sessionFile ?? "(none)"}`,
        `Model: ${agent.model().provider}/${agent.model().id}`,
        `Tokens: ${usage.input + usage.cacheRead + usage.cacheWrite} in, ${usage.output} out; cost $${usage.cost.total.toFixed(4)}`,
        `Context: ~${ctx.tokens} of ${ctx.contextWindow} (${ctx.percent}%)`,
      ].join("\n"),
    };
  },
});
