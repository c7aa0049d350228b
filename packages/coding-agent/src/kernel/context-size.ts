// The kernel's one way to size the context of a session head (compaction checks, /session, UIs),
// at the model's tokenizer ratio from the catalog.
import { charsPerToken, type Model } from "@keel/ai";
import type { Session } from "@keel/session";
import { estimateContextTokens } from "../compaction/tokens.js";

/** Index of the first message journaled after the last compaction (usage before it is stale). */
function anchorStart(session: Session): number {
  const folded = session.fold();
  if (!folded.lastCompactionId) return 0;
  const after = new Set<string>();
  const entries = session.entries();
  for (let i = entries.length - 1; i >= 0 && entries[i]!.id !== folded.lastCompactionId; i--)
    after.add(entries[i]!.id);
  const index = folded.messageSources.findIndex((id) => after.has(id));
  return index === -1 ? folded.messages.length : index;
}

export function contextTokens(session: Session, fixedTokens: number, model?: Model): number {
  return estimateContextTokens(session.context(), fixedTokens, anchorStart(session), charsPerToken(model));
}

/** Tokens of text the model has not seen yet (system prompt, tool schemas) at its tokenizer ratio. */
export function textTokens(chars: number, model: Model): number {
  return Math.ceil(chars / charsPerToken(model));
}
