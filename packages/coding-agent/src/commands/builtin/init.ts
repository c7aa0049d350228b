// /init: asks the model to look at the project and write its AGENTS.md.
import { INIT_PROMPT } from "../../kernel/init-prompt.js";
import type { BuiltinCommand } from "./spec.js";

export const initCommand: BuiltinCommand = () => ({
  name: "init",
  description: "Look at the project and write an AGENTS.md for it",
  run: async () => ({ prompt: INIT_PROMPT }),
});
