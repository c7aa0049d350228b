// A scripted reply made concrete for one request: tool arguments as strings, usage and stop
// reason resolved, so each dialect only has to spell it.
import type { ThinkingLedger } from "./dialects/claude-rules.js";
import type {
  RecordedRequest,
  ReplyTurn,
  ScriptedCitation,
  ScriptedServerTool,
  ScriptedUsage,
} from "./scenario.js";

export interface PlannedToolCall {
  /** The scripted id, or undefined for the dialect to mint one in its own format. */
  id: string | undefined;
  name: string;
  arguments: string;
}

export interface PlannedReply {
  /** Index of the request being answered; dialects derive deterministic ids from it. */
  index: number;
  /** The parsed request body, for dialect options such as stream_options.include_usage. */
  body: Record<string, unknown>;
  model: string;
  thinking: string | undefined;
  thinkingSignature: string | undefined;
  text: string | undefined;
  toolCalls: PlannedToolCall[];
  serverTools: ScriptedServerTool[];
  citations: ScriptedCitation[];
  usage: Required<ScriptedUsage>;
  stopReason: "stop" | "length" | "toolUse" | "pause" | "refusal";
  chunkSize: number;
  /** Where signatures minted for this reply are remembered (the engine's, shared across requests). */
  ledger?: ThinkingLedger;
}

const DEFAULT_CHUNK_SIZE = 16;

/** About four characters a token, rounded up: crude, but stable across runs. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

export function planReply(turn: ReplyTurn, request: RecordedRequest): PlannedReply {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  const thinking = turn.thinking;
  const outputChars =
    (thinking?.length ?? 0) +
    (turn.text?.length ?? 0) +
    toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  const usage: Required<ScriptedUsage> = {
    input: turn.usage?.input ?? estimateTokens(request.raw.length),
    output: turn.usage?.output ?? estimateTokens(outputChars),
    cacheRead: turn.usage?.cacheRead ?? 0,
    cacheWrite: turn.usage?.cacheWrite ?? 0,
    reasoning: turn.usage?.reasoning ?? estimateTokens(thinking?.length ?? 0),
  };
  return {
    index: request.index,
    body: request.body,
    model: typeof request.body.model === "string" ? request.body.model : "keel-mock-model",
    thinking,
    thinkingSignature: turn.thinkingSignature,
    text: turn.text,
    toolCalls,
    serverTools: turn.serverTools ?? [],
    citations: turn.citations ?? [],
    usage,
    stopReason: turn.stopReason ?? (toolCalls.length > 0 ? "toolUse" : "stop"),
    chunkSize: turn.chunkSize ?? DEFAULT_CHUNK_SIZE,
  };
}
