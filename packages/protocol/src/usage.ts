// Usage and cost: the tokens one reply used and what they cost, in Keel's terms whatever the provider.
import { type Static, Type } from "@sinclair/typebox";
import { strict } from "./shape.js";

const Num = Type.Number();
const Opt = Type.Optional;

/** Server-side tool calls the provider bills apart from tokens, counted per reply. */
export const ServerToolUsageSchema = strict(
  { webSearch: Opt(Num), webFetch: Opt(Num) },
  "Server-side tool calls the provider bills apart from tokens.",
);
export type ServerToolUsage = Static<typeof ServerToolUsageSchema>;

export const CostSchema = strict(
  {
    input: Num,
    output: Num,
    cacheRead: Num,
    cacheWrite: Num,
    /** Fees for server-side tool calls (web searches), where the model's price list has them. */
    serverTools: Opt(Num),
    total: Num,
  },
  "Cost in USD (0 where the price is unknown); serverTools: the fees for web searches.",
);
export type Cost = Static<typeof CostSchema>;

export const UsageSchema = strict(
  {
    /** Uncached input tokens. */
    input: Num,
    output: Num,
    cacheRead: Num,
    cacheWrite: Num,
    /** Reasoning tokens, already included in `output`. */
    reasoning: Num,
    totalTokens: Num,
    /** Web searches and fetches the provider ran for this reply. */
    serverTools: Opt(ServerToolUsageSchema),
    cost: CostSchema,
  },
  "Tokens (input is the uncached input; output includes reasoning) and their cost.",
);
export type Usage = Static<typeof UsageSchema>;

/** Usage of nothing: every count and cost 0. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}
