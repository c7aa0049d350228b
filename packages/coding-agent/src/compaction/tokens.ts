// Token estimates for compaction decisions: the provider's own count for the last answered
// request, plus an estimate of what was added after it at the model's tokenizer ratio (from the
// catalog). Estimates count the serialized JSON (escapes and structure included), because that
// is what goes over the wire.
import { DEFAULT_CHARS_PER_TOKEN, type Message, type Usage } from "@keel/ai";

const IMAGE_TOKENS = 1200;
/** Wire framing per message (role, block types, tool ids), on the safe side. */
const MESSAGE_OVERHEAD = 24;

export function estimateMessageTokens(message: Message, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
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
  return Math.ceil(textual.length / charsPerToken) + images * IMAGE_TOKENS + MESSAGE_OVERHEAD;
}

export function estimateTextTokens(text: string, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  return Math.ceil(JSON.stringify(text).length / charsPerToken) + MESSAGE_OVERHEAD;
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
  charsPerToken = DEFAULT_CHARS_PER_TOKEN,
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
      for (const later of messages.slice(i)) tokens += estimateMessageTokens(later, charsPerToken);
      return tokens;
    }
  }
  return fixedOverhead + messages.reduce((sum, m) => sum + estimateMessageTokens(m, charsPerToken), 0);
}
