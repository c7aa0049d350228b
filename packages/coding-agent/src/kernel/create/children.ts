// Creation's child-agent step: the supervisor that runs the session's child agents (at most `cap`
// at once, journaled beside its session), attached to the kernel that stops them when it closes.
import { dirname } from "node:path";
import type { KeelConfig } from "../../config/schema.js";
import { AgentSupervisor, type SupervisorDeps } from "../agents.js";
import type { KernelAgent } from "../coding-agent.js";
import { childSessionDir } from "../session-open.js";
import type { CodingAgentOptions } from "../types.js";

/** Children running at once unless config (`agents.maxConcurrent`) or options say otherwise. */
export const DEFAULT_MAX_CONCURRENT_AGENTS = 4;

export function childAgents(
  kernel: KernelAgent,
  limits: { options: CodingAgentOptions; config: KeelConfig },
  deps: Omit<SupervisorDeps, "parent" | "cap" | "childrenDir">,
): AgentSupervisor {
  const { options, config } = limits;
  const cap = options.maxConcurrentAgents ?? config.agents?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_AGENTS;
  const supervisor = new AgentSupervisor({
    parent: kernel,
    cap,
    childrenDir: () => (kernel.sessionFile ? childSessionDir(dirname(kernel.sessionFile)) : undefined),
    ...deps,
  });
  kernel.attachAgents(supervisor);
  return supervisor;
}
