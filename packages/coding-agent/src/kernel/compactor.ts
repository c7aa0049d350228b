// Runs a compaction: summarizes the history before a safe cut with the session's own model,
// journals the compaction entry, and reports tokens before and after.
import { charsPerToken, complete, type Message, type Model, type StreamOptions } from "@keel/ai";
import type { ToolDeclaration } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { type CompactionSettings, findCutIndex, keepBudget } from "../compaction/policy.js";
import {
  fileActivity,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  transcriptOf,
  withFileLists,
} from "../compaction/summary.js";
import { estimateMessageTokens } from "../compaction/tokens.js";
import { contextTokens } from "./context-size.js";
import type { CodingAgentError, CompactionReason } from "./types.js";

export interface CompactionInput {
  session: Session;
  model: Model;
  settings: CompactionSettings;
  streamOptions: StreamOptions;
  /** Tokens of system prompt + tool schemas, counted in every request. */
  fixedTokens: number;
  reason: CompactionReason;
  /** What a tool in the history declares: its paths are the files read and modified. */
  declarationOf: (toolName: string) => ToolDeclaration | undefined;
  instructions?: string;
  signal?: AbortSignal;
}

export interface CompactionOutcome {
  tokensBefore: number;
  tokensAfter: number;
}

export async function runCompaction(
  input: CompactionInput,
): Promise<Result<CompactionOutcome, CodingAgentError>> {
  const { session, model } = input;
  const folded = session.fold();
  const messages = folded.messages;
  const tokensBefore = contextTokens(session, input.fixedTokens, model);
  const ratio = charsPerToken(model);
  const tokensOf = (m: Message) => estimateMessageTokens(m, ratio);
  // A threshold compaction keeps the usual recent budget; a manual or overflow one must shrink
  // whatever the size, so it keeps at most a quarter of the history.
  const budget = keepBudget(model, input.settings);
  const historyTokens = messages.reduce((sum, m) => sum + tokensOf(m), 0);
  const keep = input.reason === "threshold" ? budget : Math.min(budget, Math.floor(historyTokens / 4));
  const cut = findCutIndex(messages, keep, tokensOf);
  if (cut <= 0)
    return err({ type: "session", message: "Nothing to compact yet: the history is already minimal." });

  const previous = folded.lastCompactionId ? session.getEntry(folded.lastCompactionId) : undefined;
  const previousSummary =
    previous?.type === "compaction" ? (previous as { summary?: string }).summary : undefined;
  // The first message of a compacted context is the previous summary itself; summarize what follows it.
  const start = previousSummary && folded.messageSources[0] === folded.lastCompactionId ? 1 : 0;
  const summarized = messages.slice(start, cut);
  // Keep the summarizer's own request within the window.
  const budgetChars = Math.max(4000, Math.floor(model.contextWindow * 0.5 * ratio));
  const transcript = transcriptOf(summarized).slice(-budgetChars);

  const reply = await complete(
    model,
    {
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: summaryRequestText(transcript, previousSummary, input.instructions),
          timestamp: Date.now(),
        },
      ],
    },
    {
      ...input.streamOptions,
      ...(input.signal ? { signal: input.signal } : {}),
      maxTokens: Math.min(8192, model.maxOutput),
      // A summary needs no deep reasoning, and models that always think would spend the
      // answer's budget on it: the model's lowest setting (off, between_tools, or its lowest effort).
      reasoning: "off",
    },
  );
  if (
    reply.stopReason === "error" ||
    reply.stopReason === "aborted" ||
    reply.stopReason === "context_overflow"
  ) {
    return err({ type: "model", message: `Compaction failed: ${reply.error?.message ?? reply.stopReason}` });
  }
  const text = reply.content
    .flatMap((c) => (c.type === "text" ? [c.text] : []))
    .join("\n")
    .trim();
  if (!text)
    return err({ type: "model", message: "Compaction failed: the model returned an empty summary." });

  const summary = withFileLists(text, fileActivity(summarized, input.declarationOf), previousSummary);
  const firstKeptEntryId = folded.messageSources[cut] ?? null;
  const appended = await session.appendEntry({
    type: "compaction",
    summary,
    firstKeptEntryId,
    tokensBefore,
    reason: input.reason,
  });
  if (appended.isErr()) return err({ type: "session", message: appended.error.message });
  const tokensAfter = contextTokens(session, input.fixedTokens, model);
  return ok({ tokensBefore, tokensAfter });
}
