// What an extension's tool gets when it runs: the tool-call context (runAgent, approvals, exec
// tied to the call's signal, the calling child agent) and the resident tools wrapped for the loop
// with their declarations, so the kernel judges, journals and shows them by what they declare.
import type { AgentTool, AgentToolResult, ToolExecutionContext } from "@keel/agent";
import type { ToolCallContext } from "@keel/extension-sdk";
import { type DeclaredTool, declarationOf } from "../tools/declarations.js";
import type { Active } from "./extension-host.js";
import type { Caller, HostServices } from "./runtime.js";

/** The full tool-call context for a tool of `extensionId`, made by `caller`. */
export function toolCallContext(
  services: HostServices,
  extensionId: string,
  loop: ToolExecutionContext,
  caller: Caller = {},
): ToolCallContext {
  const who: Caller = {
    toolCallId: loop.toolCallId,
    signal: loop.signal,
    ...(caller.agent ? { agent: caller.agent } : {}),
  };
  return {
    signal: loop.signal,
    toolCallId: loop.toolCallId,
    onUpdate: loop.onUpdate,
    runAgent: (options) => services.runAgent(extensionId, options, who),
    agents: () => services.agents(),
    approve: (request) =>
      services.approve(extensionId, request, { ...who, signal: request.signal ?? loop.signal }),
    // Ended with the call, or sooner by the extension's own signal.
    exec: (file, args, options) =>
      services.exec(
        extensionId,
        file,
        args,
        {
          ...options,
          signal: options?.signal ? AbortSignal.any([options.signal, loop.signal]) : loop.signal,
        },
        who,
      ),
    ...(caller.agent ? { agent: caller.agent } : {}),
  };
}

/** The active extensions' resident tools as the loop runs them, in load order. */
export function extensionTools(
  active: readonly Active[],
  contextFor: (extensionId: string, loop: ToolExecutionContext) => ToolCallContext,
): DeclaredTool[] {
  const tools: DeclaredTool[] = [];
  for (const a of active) {
    for (const tool of a.tools) {
      tools.push({
        name: tool.name,
        ...(tool.label ? { label: tool.label } : {}),
        description: tool.description,
        parameters: tool.parameters as AgentTool["parameters"],
        ...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
        // What it declares travels with it: the kernel judges, journals and shows it by that.
        ...declarationOf(tool),
        execute: (args, context) =>
          tool.execute(
            args as never,
            contextFor(a.definition.id, context),
            a.runtime,
          ) as Promise<AgentToolResult>,
      });
    }
  }
  return tools;
}
