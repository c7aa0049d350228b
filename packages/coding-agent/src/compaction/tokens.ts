// Token estimates for compaction decisions: the provider's own count for the last answered
// request, plus a conservative estimate of what was added after it. Estimates count the
// serialized JSON (escapes and structure included), because that is what goes over the wire.
import type { Message, Usage } from "@keel/ai";

const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1200;
/** Wire framing per message (role, block types, tool ids), on the safe side. */
const MESSAGE_OVERHEAD = 24;

export function estimateMessageTokens(message: Message): number {
  let images = 0;
  const content = message.content;
  if (Array.isArray(content)) for (const c of content) if (c.type === "image") images++;
  const textual =
    typeof content === "string"
      ? JSON.stringify(content)
      : JSON.stringify(
          (content as Message["content"] & unknown[]).map((c) => {
            const block = c as { type: string };
            return block.type === "image"
              ? null
              : block.type === "thinking"
                ? { t: (c as { thinking: string }).thinking }
                : c;
          }),
        );
  return Math.ceil(textual.length / CHARS_PER_TOKEN) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(JSON.stringify(text).length / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD;
}

function promptTokensOf(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

/**
 * Tokens the next request would carry. The last successful assistant message's reported prompt
 * size covers everything before it; that message and later ones are estimated. Only messages
 * from `anchorFrom` on may serve as the anchor: usage reported before a compaction measured a
 * longer context than the one that exists now.
 */
export function estimateContextTokens(
  messages: readonly Message[],
  fixedOverhead: number,
  anchorFrom = 0,
): number {
  for (let i = messages.length - 1; i >= anchorFrom; i--) {
    const m = messages[i]!;
    if (
      m.role === "assistant" &&
      m.stopReason !== "error" &&
      m.stopReason !== "aborted" &&
      promptTokensOf(m.usage) > 0
    ) {
      let tokens = promptTokensOf(m.usage);
      for (const later of messages.slice(i)) tokens += estimateMessageTokens(later);
      return tokens;
    }
  }
  return fixedOverhead + messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}
