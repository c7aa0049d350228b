// When to compact and where to cut. The cut never separates a tool call from its result:
// kept history always starts at a user prompt or an assistant message.
import type { Message, Model } from "@keel/ai";

export interface CompactionSettings {
  /** Compact when the next request would exceed this fraction of the context window. */
  threshold: number;
  /** Tokens of recent history kept verbatim after a compaction. */
  keepRecentTokens: number;
  /** Tokens reserved for the model's answer. */
  reserveTokens: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = {
  threshold: 0.8,
  keepRecentTokens: 20_000,
  reserveTokens: 16_384,
};

/** The token count above which a request must not be sent uncompacted. */
export function compactionLimit(model: Model, settings: CompactionSettings): number {
  const reserve = Math.min(settings.reserveTokens, model.maxOutput, Math.floor(model.contextWindow / 4));
  return Math.min(Math.floor(model.contextWindow * settings.threshold), model.contextWindow - reserve);
}

/** Kept recent history scaled to the window, so small windows still leave room for the summary. */
export function keepBudget(model: Model, settings: CompactionSettings): number {
  return Math.min(settings.keepRecentTokens, Math.floor(compactionLimit(model, settings) * 0.3));
}

/**
 * Index of the first message to keep: walks back from the end until `keepTokens` are covered,
 * then moves back to the user prompt that started that turn, so the kept part begins with a
 * question (an overflow retry still ends with the user's prompt). Without such a prompt it cuts
 * at an assistant message; never at a tool result. Returns 0 when nothing can be cut.
 */
export function findCutIndex(
  messages: readonly Message[],
  keepTokens: number,
  tokensOf: (m: Message) => number,
): number {
  let kept = 0;
  let index = messages.length;
  while (index > 0 && kept < keepTokens) {
    index--;
    kept += tokensOf(messages[index]!);
  }
  index = Math.min(index, messages.length - 1);
  let prompt = index;
  while (prompt > 0 && messages[prompt]!.role !== "user") prompt--;
  if (prompt > 0) return prompt;
  while (index > 0 && messages[index]!.role === "toolResult") index--;
  return Math.max(index, 0);
}
