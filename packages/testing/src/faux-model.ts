// A model description (@keel/protocol's `Model`) pointing at the faux origin.
import type { Model } from "@keel/protocol";
import type { WireApi } from "./scenario.js";

export const FAUX_ORIGIN = "http://faux.keel.invalid";

/** A `Model` whose `baseUrl` is always set (to the faux origin, unless overridden). */
export interface FauxModel extends Model {
  baseUrl: string;
}

export function fauxModel(api: WireApi, overrides: Partial<FauxModel> = {}): FauxModel {
  const anthropic = api === "anthropic-messages";
  return {
    id: `faux-${api}`,
    name: `Faux ${api}`,
    api,
    provider: anthropic ? "anthropic" : "openai",
    baseUrl: anthropic ? FAUX_ORIGIN : `${FAUX_ORIGIN}/v1`,
    reasoning: true,
    input: ["text", "image"],
    contextWindow: anthropic ? 200_000 : 128_000,
    maxOutput: anthropic ? 64_000 : 32_000,
    // Dollars per million tokens, round numbers so cost assertions are easy to compute by hand.
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    ...overrides,
  };
}
