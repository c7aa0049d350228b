// Usage → cost in USD from the model's per-million-token prices.
import type { Cost, ModelCost, Usage } from "./types.js";

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

/**
 * The prices a request pays: the highest long-context tier its prompt (input + cache read +
 * cache write) passes, else the base rates. A tier prices the whole request, as vendors bill it.
 */
export function ratesFor(price: ModelCost, promptTokens: number): Omit<ModelCost, "tiers" | "unknown"> {
  let rates: Omit<ModelCost, "tiers" | "unknown"> = price;
  for (const tier of price.tiers ?? []) if (promptTokens > tier.aboveInputTokens) rates = tier;
  return rates;
}

export function computeCost(model: ModelCost, usage: Usage): Cost {
  const price = ratesFor(model, usage.input + usage.cacheRead + usage.cacheWrite);
  const input = (usage.input * price.input) / 1e6;
  const output = (usage.output * price.output) / 1e6;
  const cacheRead = (usage.cacheRead * price.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWrite * price.cacheWrite) / 1e6;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

/** Adds b to a (for totals over several messages). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
    totalTokens: a.totalTokens + b.totalTokens,
    cost: {
      input: a.cost.input + b.cost.input,
      output: a.cost.output + b.cost.output,
      cacheRead: a.cost.cacheRead + b.cost.cacheRead,
      cacheWrite: a.cost.cacheWrite + b.cost.cacheWrite,
      total: a.cost.total + b.cost.total,
    },
  };
}
