// Shared setup for kernel tests: a temp workspace (a git repo), a temp Keel home, and a faux model.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model } from "@keel/ai";
import { createFauxFetch, fauxModel, type Scenario } from "@keel/testing";

export interface Sandbox {
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "keel-kernel-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  execFileSync("mkdir", ["-p", workspace, home]);
  execFileSync("git", ["init", "-q", workspace]);
  return { workspace, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function faux(scenario: Scenario, overrides: Partial<Model> = {}) {
  const transport = createFauxFetch(scenario);
  const model = { ...(fauxModel("anthropic-messages") as Model), ...overrides };
  return {
    ...transport,
    model,
    streamOptions: { fetch: transport.fetch, apiKey: "test", retry: { baseDelayMs: 1 } },
  };
}
