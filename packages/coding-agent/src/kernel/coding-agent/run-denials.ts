// The tool calls a run had blocked, for its summary: the gate's and extensions' blocks as they
// happen, and its child agents' as their events pass by. Each one is a permission_denied event too.

import { type DenialInput, toDenial } from "../denials.js";
import type { ToolPermission } from "../seams.js";
import type { CodingAgentEvent, PermissionDenial } from "../types.js";

export class RunDenials {
  private list: PermissionDenial[] = [];

  constructor(
    private readonly emit: (event: CodingAgentEvent) => void,
    /** Whether the loop runs: a child's denial belongs to this session's run only then. */
    private readonly running: () => boolean,
  ) {}

  /** A run starts: its denials are counted from here. */
  reset(): void {
    this.list = [];
  }

  all(): PermissionDenial[] {
    return [...this.list];
  }

  denied(input: DenialInput): void {
    const denial = toDenial(input);
    this.list.push(denial);
    this.emit({ type: "permission_denied", ...denial });
  }

  /** The gate's blocks become permission_denied events (the check is shared with child agents). */
  reporting(check: ToolPermission): ToolPermission {
    return async (call) => {
      const outcome = await check(call);
      if (outcome.action === "block") {
        const { toolCallId, toolName, args, declaration } = call;
        this.denied({
          toolCallId,
          toolName,
          args,
          reason: outcome.reason,
          by: outcome.by ?? "rule",
          ...(declaration ? { declaration } : {}),
        });
      }
      return outcome;
    };
  }

  /** A child agent's denial during this run belongs to the run's summary too. */
  observe(event: CodingAgentEvent): void {
    if (event.type === "agent_event" && event.event.type === "permission_denied" && this.running()) {
      const { type: _, ...denial } = event.event;
      this.list.push({ ...denial, agentId: event.agentId });
    }
  }
}
