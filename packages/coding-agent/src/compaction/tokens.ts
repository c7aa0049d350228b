// Token estimates for compaction decisions: the provider's own count for everything up to the
// last answered request, plus a character estimate for what came after it.
import type { Message, Usage } from "@keel/ai";

const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1200;

export function estimateMessageTokens(message: Message): number {
  let chars = 0;
  if (message.role === "user") {
    if (typeof message.content === "string") chars = message.content.length;
    else
      for (const c of message.content)
        chars += c.type === "text" ? c.text.length : IMAGE_TOKENS * CHARS_PER_TOKEN;
  } else if (message.role === "assistant") {
    for (const c of message.content) {
      if (c.type === "text") chars += c.text.length;
      else if (c.type === "thinking") chars += c.thinking.length;
      else chars += c.name.length + JSON.stringify(c.arguments).length;
    }
  } else {
    for (const c of message.content)
      chars += c.type === "text" ? c.text.length : IMAGE_TOKENS * CHARS_PER_TOKEN;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + 4;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function contextTokensOf(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}

/**
 * Tokens the next request would carry: the last successful assistant message's reported usage
 * covers everything up to and including it; later messages are estimated.
 */
export function estimateContextTokens(messages: readonly Message[], fixedOverhead: number): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (
      m.role === "assistant" &&
      m.stopReason !== "error" &&
      m.stopReason !== "aborted" &&
      contextTokensOf(m.usage) > 0
    ) {
      let tokens = contextTokensOf(m.usage);
      for (const later of messages.slice(i + 1)) tokens += estimateMessageTokens(later);
      return tokens;
    }
  }
  return fixedOverhead + messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}
