// Placeholder until the adapter lands; replaced, never shipped.
import type { ProviderAdapter } from "../driver.js";
export const anthropicAdapter: ProviderAdapter = {
  api: "anthropic" as ProviderAdapter["api"],
  open: async () => {
    throw new Error("anthropic adapter not written yet");
  },
  translate: () => {},
  classify: (e) => ({ type: "protocol", message: String(e) }),
};
