// Client-feature handlers for connection tests: fixed roots, elicitation declined, no sampling.
import type { ClientFeatureHandlers } from "../../src/connection/client.js";

export function plainHandlers(overrides: Partial<ClientFeatureHandlers> = {}): ClientFeatureHandlers {
  return {
    roots: () => [],
    elicit: async () => ({ action: "decline" }),
    ...overrides,
  };
}

export const clientInfo = { name: "keel-test", version: "0.0.0" };
