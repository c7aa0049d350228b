// Placeholder until the adapter lands; replaced, never shipped.
import type { ProviderAdapter } from "../driver.js";
export const openaiCompletionsAdapter: ProviderAdapter = {
  api: "openai-completions" as ProviderAdapter["api"],
  open: async () => {
    throw new Error("openai-completions adapter not written yet");
  },
  translate: () => {},
  classify: (e) => ({ type: "protocol", message: String(e) }),
};
