// What the Messages API does differently for the Claude 5 family, per model id, as the vendor's
// migration guides describe it: requests it rejects (400 invalid_request_error), the reply shapes
// it sends (thinking display, notes between tool calls), and thinking blocks bound to the model
// and to the conversation before them. The mock applies these only to the ids listed here.

export interface ClaudeRules {
  /** thinking.type values the model accepts when the field is sent. */
  thinkingTypes: readonly string[];
  /** What thinking blocks carry when the request sets no display. */
  defaultDisplay: "omitted" | "summarized";
  /** Text written before tool calls comes back as thinking blocks (Claude Sonnet 5.5). */
  notesInThinking?: boolean;
  /** A thinking block another model signed: rejected (400) or silently dropped. */
  modelBinding: "error" | "drop";
  /** Blocks are bound to the conversation before them (preserved thinking's prefix check). */
  prefixCheck?: boolean;
  /** Highest effort allowed with thinking.type "between_tools". */
  betweenToolsMaxEffort?: string;
  /** An assistant message last (prefill) is rejected. */
  noPrefill?: boolean;
}

const EFFORTS = ["low", "medium", "high", "xhigh", "max"];

export const CLAUDE_RULES: Readonly<Record<string, ClaudeRules>> = {
  "claude-sonnet-5-5": {
    thinkingTypes: ["adaptive", "between_tools"],
    defaultDisplay: "omitted",
    notesInThinking: true,
    modelBinding: "error",
    prefixCheck: true,
    betweenToolsMaxEffort: "high",
    noPrefill: true,
  },
  "claude-opus-5-5": {
    thinkingTypes: ["adaptive"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
    prefixCheck: true,
  },
  "claude-fable-5-2": {
    thinkingTypes: ["adaptive"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
    prefixCheck: true,
  },
  "claude-fable-5-1": {
    thinkingTypes: ["adaptive"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
    prefixCheck: true,
  },
  "claude-haiku-5-5": {
    thinkingTypes: ["adaptive"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
    prefixCheck: true,
  },
  "claude-opus-5": {
    thinkingTypes: ["adaptive", "disabled"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
  },
  "claude-sonnet-5": {
    thinkingTypes: ["adaptive", "disabled"],
    defaultDisplay: "omitted",
    modelBinding: "drop",
  },
  "claude-fable-5": { thinkingTypes: ["adaptive"], defaultDisplay: "omitted", modelBinding: "drop" },
};

/** Signatures the mock handed out: which model made each, and the conversation before it. */
export type ThinkingLedger = Map<string, { model: string; prefix: string }>;

type Body = Record<string, unknown>;
type Block = { type?: unknown; signature?: unknown; data?: unknown };

function withoutCacheMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheMarkers);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "cache_control")
      .map(([key, v]) => [key, withoutCacheMarkers(v)]),
  );
}

/** What came before a block: system, tools and the messages before index `upTo` (cache markers aside). */
export function conversationPrefix(body: Body, upTo: number): string {
  const messages = Array.isArray(body.messages) ? body.messages.slice(0, upTo) : [];
  return JSON.stringify(
    withoutCacheMarkers({ system: body.system ?? null, tools: body.tools ?? [], messages }),
  );
}

function signatureOf(block: Block): string | undefined {
  if (block.type === "thinking" && typeof block.signature === "string") return block.signature;
  if (block.type === "redacted_thinking" && typeof block.data === "string") return block.data;
  return undefined;
}

/** The 400 message the API answers `body` with on `model`, or undefined when it accepts it. */
export function claudeRequestProblem(
  model: string,
  rules: ClaudeRules,
  body: Body,
  ledger: ThinkingLedger,
): string | undefined {
  for (const param of ["temperature", "top_p", "top_k"]) {
    if (body[param] !== undefined)
      return `${param}: sampling parameters are not supported on ${model}; adaptive thinking is steered by output_config.effort instead.`;
  }
  const thinking = (body.thinking ?? undefined) as
    | { type?: string; block_binding?: { prefix_mismatch_behavior?: string } }
    | undefined;
  if (thinking?.type !== undefined && !rules.thinkingTypes.includes(thinking.type)) {
    if (thinking.type === "enabled")
      return `thinking.type: "enabled" (manual thinking with budget_tokens) is not supported on ${model}; use {"type": "adaptive"} and output_config.effort.`;
    if (thinking.type === "disabled" && rules.thinkingTypes.includes("between_tools"))
      return `thinking.type: "disabled" is not supported on ${model}; send {"type": "between_tools"} to turn off up-front thinking.`;
    return `thinking.type: "${thinking.type}" is not supported on ${model}.`;
  }
  const effort = (body.output_config as { effort?: string } | undefined)?.effort;
  if (
    thinking?.type === "between_tools" &&
    rules.betweenToolsMaxEffort &&
    effort !== undefined &&
    EFFORTS.indexOf(effort) > EFFORTS.indexOf(rules.betweenToolsMaxEffort)
  ) {
    return `output_config.effort: "${effort}" cannot be combined with thinking.type "between_tools" on ${model}; use adaptive thinking for xhigh or max.`;
  }
  const toolChoice = body.tool_choice as { type?: string } | undefined;
  if (toolChoice && (toolChoice.type === "any" || toolChoice.type === "tool"))
    return `tool_choice: forced tool use ("${toolChoice.type}") is not supported on ${model}; use "auto" or "none".`;
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role?: string; content?: unknown }[])
    : [];
  if (rules.noPrefill && messages.at(-1)?.role === "assistant")
    return `messages: prefilling the assistant message is not supported on ${model}.`;

  const dropStale = thinking?.block_binding?.prefix_mismatch_behavior === "drop_block";
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const [j, block] of (message.content as Block[]).entries()) {
      const signature = signatureOf(block);
      const issued = signature === undefined ? undefined : ledger.get(signature);
      if (!issued) continue;
      if (issued.model !== model) {
        if (rules.modelBinding === "error")
          return `messages.${i}.content.${j}: this thinking block was produced by ${issued.model} and cannot be used with ${model}; remove it.`;
        continue;
      }
      if (rules.prefixCheck && !dropStale && conversationPrefix(body, i) !== issued.prefix) {
        return (
          `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. ` +
          'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
        );
      }
    }
  }
  return undefined;
}
