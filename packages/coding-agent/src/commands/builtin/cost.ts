// /cost: tokens and cost of this session, its child agents and external services apart.
import { formatUsage } from "../../kernel/usage-text.js";
import type { BuiltinCommand } from "./spec.js";

export const costCommand: BuiltinCommand = (agent) => ({
  name: "cost",
  description: "Tokens and cost of this session, child agents included",
  run: async () => ({ message: formatUsage(agent.usageBreakdown()) }),
});
