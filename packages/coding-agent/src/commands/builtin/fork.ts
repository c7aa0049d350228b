// /fork: the session so far continues in a new session file.
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const forkCommand: BuiltinCommand = (agent) => ({
  name: "fork",
  description: "Continue in a new session file from here",
  run: async () => outcome((await agent.fork()).map((f) => ({ message: `Forked into ${f.sessionFile}` }))),
});
