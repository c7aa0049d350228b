// Usage → cost in USD from the model's per-million-token prices.
import type { Cost, ModelCost, ServerToolUsage, Usage } from "./types.js";

export { emptyUsage } from "@keel/protocol";

/**
 * The prices a request pays: the highest long-context tier its prompt (input + cache read +
 * cache write) passes, else the base rates. A tier prices the whole request, as vendors bill it.
 */
export function ratesFor(
  price: ModelCost,
  promptTokens: number,
): Omit<ModelCost, "tiers" | "unknown" | "serverTools"> {
  let rates: Omit<ModelCost, "tiers" | "unknown" | "serverTools"> = price;
  for (const tier of price.tiers ?? []) if (promptTokens > tier.aboveInputTokens) rates = tier;
  return rates;
}

export function computeCost(model: ModelCost, usage: Usage): Cost {
  const price = ratesFor(model, usage.input + usage.cacheRead + usage.cacheWrite);
  const input = (usage.input * price.input) / 1e6;
  const output = (usage.output * price.output) / 1e6;
  const cacheRead = (usage.cacheRead * price.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWrite * price.cacheWrite) / 1e6;
  const tokens = input + output + cacheRead + cacheWrite;
  const fees = serverToolFees(model.serverTools, usage.serverTools);
  if (fees === undefined) return { input, output, cacheRead, cacheWrite, total: tokens };
  return { input, output, cacheRead, cacheWrite, serverTools: fees, total: tokens + fees };
}

/** What the provider bills for the searches and fetches it ran, per its price per 1,000 calls. */
function serverToolFees(
  price: ServerToolUsage | undefined,
  used: ServerToolUsage | undefined,
): number | undefined {
  if (!used) return undefined;
  return (
    ((used.webSearch ?? 0) * (price?.webSearch ?? 0) + (used.webFetch ?? 0) * (price?.webFetch ?? 0)) / 1000
  );
}

function addServerTools(
  a: ServerToolUsage | undefined,
  b: ServerToolUsage | undefined,
): ServerToolUsage | undefined {
  if (!a) return b && { ...b };
  if (!b) return { ...a };
  const webSearch = (a.webSearch ?? 0) + (b.webSearch ?? 0);
  const webFetch = (a.webFetch ?? 0) + (b.webFetch ?? 0);
  return { ...(webSearch ? { webSearch } : {}), ...(webFetch ? { webFetch } : {}) };
}

/** Adds b to a (for totals over several messages). */
export function addUsage(a: Usage, b: Usage): Usage {
  const serverTools = addServerTools(a.serverTools, b.serverTools);
  const fees =
    a.cost.serverTools !== undefined || b.cost.serverTools !== undefined
      ? (a.cost.serverTools ?? 0) + (b.cost.serverTools ?? 0)
      : undefined;
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(serverTools ? { serverTools } : {}),
    cost: {
      input: a.cost.input + b.cost.input,
      output: a.cost.output + b.cost.output,
      cacheRead: a.cost.cacheRead + b.cost.cacheRead,
      cacheWrite: a.cost.cacheWrite + b.cost.cacheWrite,
      ...(fees !== undefined ? { serverTools: fees } : {}),
      total: a.cost.total + b.cost.total,
    },
  };
}
