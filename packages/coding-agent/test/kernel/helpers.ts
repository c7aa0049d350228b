// Shared setup for kernel tests, from the kernel's own test harness (src/testing.ts): a temp
// workspace (a git repo), a temp Keel home, and a faux model.
import type { Model } from "@keel/ai";
import type { Scenario } from "@keel/testing";
import { fauxProvider, kernelFixture } from "../../src/testing.js";

export interface Sandbox {
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const f = kernelFixture();
  return { workspace: f.workspace, home: f.home, cleanup: f.cleanup };
}

export function faux(scenario: Scenario, overrides: Partial<Model> = {}) {
  return fauxProvider(scenario, "anthropic-messages", overrides);
}
