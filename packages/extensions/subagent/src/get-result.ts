// GetAgentResult: a child's result by id, waiting up to wait_ms for one still running. Handing over
// an ended background child's result here counts as its delivery (no notice follows); asking again
// after the notice came is a re-read.
import { type Static, type ToolCallContext, type ToolResult, Type, textResult } from "@keel/extension-sdk";
import { sleep } from "@keel/extension-sdk/node";
import type { SubagentRuntime } from "./children.js";
import { resultText, stillRunningText } from "./report.js";

/** The longest one call waits (Claude Code's TaskOutput allows the same ten minutes). */
export const MAX_WAIT_MS = 600_000;

export const GetResultParams = Type.Object({
  agent_id: Type.String({ minLength: 1, description: "The id SpawnAgent returned." }),
  wait_ms: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_WAIT_MS,
      description: "Wait this long for a running agent to end (default 0: answer at once).",
    }),
  ),
});

export const GET_RESULT_DESCRIPTION =
  "Get a sub-agent's result by the id SpawnAgent returned: its final message, how it ended, turns and cost. " +
  "For an agent still running it says so; with wait_ms it first waits up to that long for it to end. " +
  "A background agent's result also arrives by itself as a notice, so only wait when you need it now.";

export async function getAgentResult(
  args: Static<typeof GetResultParams>,
  ctx: ToolCallContext,
  runtime: SubagentRuntime,
): Promise<ToolResult> {
  const children = runtime.instance;
  const id = args.agent_id.trim();
  const records = runtime.agents();
  const record = records.find((r) => r.agentId === id);
  if (!record)
    return textResult(
      `There is no agent "${id}" in this session${records.length > 0 ? `; agents: ${records.map((r) => r.agentId).join(", ")}` : ""}.`,
      undefined,
      true,
    );
  const live = children.live.get(id);
  let result = record.result;
  if (live) {
    const wait = Math.min(args.wait_ms ?? 0, MAX_WAIT_MS);
    const started = Date.now();
    // Registered as waiting until the result is in hand, so an end meanwhile is handed to this call.
    const ended = await children.waitingOn(id, async () => {
      if (live.run.status() === "running" && wait > 0)
        await Promise.race([live.run.result, sleep(wait, ctx.signal)]);
      return live.run.status() === "running" ? undefined : await live.run.result;
    });
    if (!ended) return textResult(stillRunningText(live.activity, Date.now() - started));
    result = ended;
  }
  if (!result) return textResult(`Agent ${id} has no result yet.`, undefined, true);
  const before = runtime.state.get().children.find((c) => c.agentId === id)?.delivery;
  children.pulled(runtime, id);
  const again = before === "notice" ? "\n(Its completion notice came earlier; this is the full result.)" : "";
  return textResult(`${resultText(result, runtime.config.resultChars)}${again}`, result);
}
