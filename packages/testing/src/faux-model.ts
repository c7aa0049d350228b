// A model description shaped like @keel/ai's `Model`, pointing at the faux origin; typed
// structurally so this package needs no @keel dependency.
import type { WireApi } from "./scenario.js";

export const FAUX_ORIGIN = "http://faux.keel.invalid";

export interface FauxModel {
  id: string;
  name: string;
  api: WireApi;
  provider: string;
  baseUrl: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  contextWindow: number;
  maxOutput: number;
  cost: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    /** USD per 1,000 server-side tool calls. */
    serverTools?: { webSearch?: number; webFetch?: number };
  };
  /** The provider's own server tools this model has (web_search, web_fetch). */
  serverTools?: ("web_search" | "web_fetch")[];
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
