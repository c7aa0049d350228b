// Placeholder until the adapter lands; replaced, never shipped.
import type { ProviderAdapter } from "../driver.js";
export const openaiResponsesAdapter: ProviderAdapter = {
  api: "openai-responses" as ProviderAdapter["api"],
  open: async () => {
    throw new Error("openai-responses adapter not written yet");
  },
  translate: () => {},
  classify: (e) => ({ type: "protocol", message: String(e) }),
};
