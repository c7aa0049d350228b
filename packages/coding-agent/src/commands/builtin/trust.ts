// /trust: shows what the project could do if trusted, before anything is; trusting takes an
// explicit "yes" (headless: keel -p "/trust yes"; a host may confirm in a dialog instead).
import { formatTrustPreview } from "../../kernel/trust-preview.js";
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

export const trustCommand: BuiltinCommand = (agent) => ({
  name: "trust",
  description: "Show what this project could do if trusted; /trust yes trusts it",
  argumentHint: "[yes]",
  interactive: "trust-confirm",
  run: async (args) => {
    if (args !== "" && args !== "yes") return { error: "Usage: /trust (show what it allows) or /trust yes" };
    const preview = formatTrustPreview(await agent.trustPreview());
    if (args === "")
      return {
        message: `${preview}\n\nNothing was trusted. To trust it as it is now: /trust yes (or keel -p "/trust yes").`,
      };
    return outcome(
      (await agent.trust()).map((t) => ({
        message: `${preview}\n\nTrusted ${t.projectRoot}. Its config, extensions and hooks load from the next session (/new).`,
      })),
    );
  },
});
