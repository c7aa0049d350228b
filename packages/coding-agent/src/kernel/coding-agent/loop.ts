// The agent loop of a session's kernel, wired to the seams (request preparation, tool gating,
// journaling: ../seams.ts) and to the kernel's events; and its second construction step, when
// the extension host's tools and the system prompt are known.
import { Agent, type AgentTool } from "@keel/agent";
import type { Message } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import type { ExtensionHost, HostView } from "../../host/extension-host.js";
import { createAgentEventBridge } from "../agent-events.js";
import type { DenialInput } from "../denials.js";
import {
  type BegunOperations,
  createAfterToolCall,
  createBeforeToolCall,
  createPrepareRequest,
  createSettleUnstarted,
} from "../seams.js";
import type { CodingAgentEvent, ToolCallInfo } from "../types.js";
import type { RunDenials } from "./run-denials.js";
import type { Runs } from "./runs.js";
import type { KernelState } from "./state.js";

export interface LoopHooks {
  emit: (event: CodingAgentEvent) => void;
  report: (level: Diagnostic["level"], message: string) => void;
  denials: RunDenials;
  /** A denial that asks to stop the run, and the turn that ends it. */
  stop: Pick<Runs, "requestStop" | "stopping" | "turnEnded">;
  /** A compaction at the threshold, from the seams before a request; true when it compacted. */
  compact: (reason: "threshold", signal: AbortSignal) => Promise<boolean>;
  describeCall: (toolName: string, args: Record<string, unknown>) => ToolCallInfo;
  /** The files a finished tool call named in its declared path arguments. */
  touched: (paths: string[]) => void;
}

/** Makes the loop over the state's session; the state holds it from then on. */
export function createLoop(state: KernelState, hooks: LoopHooks): Agent {
  const { parts } = state;
  const begun: BegunOperations = new Map();
  const scrub = parts.sandbox ? { scrub: <T>(value: T) => parts.sandbox!.scrubber().scrub(value) } : {};
  const seams = {
    session: () => state.session,
    host: () => state.host,
    model: () => state.model,
    settings: parts.compaction,
    fixedTokens: () => state.fixedTokens,
    permission: hooks.denials.reporting(parts.permission.check),
    denied: (denial: DenialInput) => hooks.denials.denied(denial),
    ...(parts.agent ? { agent: parts.agent } : {}),
    compact: hooks.compact,
    syncHistory: (messages: Message[]) => agent.replaceMessages(messages),
    flushNotices: async () => {
      await state.notices.flush();
    },
    onNotice: (text: string) => hooks.emit({ type: "capability_notice", text }),
    report: (message: string) => hooks.report("warning", message),
    ...(parts.files ? { files: parts.files } : {}),
    requestStop: () => hooks.stop.requestStop(),
    stopping: () => hooks.stop.stopping(),
    ...scrub,
    touched: hooks.touched,
  };
  const agent: Agent = new Agent({
    model: parts.model,
    systemPrompt: parts.systemPrompt,
    tools: parts.builtinTools,
    streamOptions: state.requestOptions(parts.session.id),
    ...(parts.maxTurns !== undefined ? { maxTurns: parts.maxTurns } : {}),
    messages: parts.session.context(),
    prepareRequest: state.journal.prepareRequest(createPrepareRequest(seams)),
    beforeToolCall: state.journal.beforeToolCall(createBeforeToolCall(seams, begun)),
    afterToolCall: createAfterToolCall(seams, begun),
    onListenerError: (error) => hooks.report("warning", `event listener failed: ${String(error)}`),
  });
  const settleUnstarted = createSettleUnstarted(seams, begun);
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") void settleUnstarted(event.toolCallId, event.result);
  });
  agent.subscribe(
    createAgentEventBridge({
      session: () => state.session,
      host: () => state.host,
      emit: hooks.emit,
      report: hooks.report,
      describeCall: hooks.describeCall,
      ...scrub,
    }),
  );
  // A denial that asked to stop ends the run once its tool batch is done (results journaled).
  agent.subscribe((event) => {
    if (event.type === "turn_end") hooks.stop.turnEnded();
  });
  return agent;
}

/**
 * Second construction step: the host needs the kernel's services, the kernel needs the host's
 * tools. A session's kernel owns its ExtensionHost; a child agent's gets a view of its parent's.
 */
export function attachHost(
  state: KernelState,
  host: HostView,
  systemPrompt: string,
  owned?: ExtensionHost,
  tools?: AgentTool[],
): void {
  state.host = host;
  state.ownHost = owned;
  if (!tools) tools = [...state.parts.builtinTools, ...host.tools()];
  state.agent.configure({ tools, systemPrompt });
  state.fixedChars =
    systemPrompt.length + JSON.stringify(tools.map((t) => [t.name, t.description, t.parameters])).length;
}
