// Runs a compaction: summarizes the history before a safe cut with the session's own model,
// journals the compaction entry, and reports tokens before and after. A compaction that could not
// shrink the context (a short conversation, a long summary) journals nothing and says so.
import {
  type AssistantMessage,
  addUsage,
  charsPerToken,
  complete,
  emptyUsage,
  type Message,
  type Model,
  type StreamOptions,
  type Tool,
  type Usage,
} from "@keel/ai";
import type { ToolDeclaration } from "@keel/extension-sdk";
import { compactionSummaryMessage, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { type CompactionSettings, findCutIndex, keepBudget } from "../compaction/policy.js";
import {
  continuationRequestText,
  fileActivity,
  SUMMARY_SECTIONS,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  transcriptOf,
  withFileLists,
} from "../compaction/summary.js";
import { estimateMessageTokens, estimateTextTokens } from "../compaction/tokens.js";
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
  /**
   * The conversation's own request (its system prompt, tools and options, the session's cache
   * key and thinking included): given, the summary is asked for at the end of the conversation
   * as it was last sent, so the provider's cached prefix serves it. Left out, or when the
   * conversation and the summary would not fit the window, the summary is a request of its own.
   */
  conversation?: { systemPrompt: string; tools: Tool[]; streamOptions: StreamOptions };
}

export interface CompactionOutcome {
  tokensBefore: number;
  tokensAfter: number;
  /** What the summary request cost. */
  usage: Usage;
  /** "continuation": asked at the end of the cached conversation; "transcript": on its own. */
  mode: "continuation" | "transcript";
}

/** A failure after a summary was asked for carries what that request cost. */
export type CompactionFailure = CodingAgentError & { usage?: Usage };

/** The summary's output cap. */
const SUMMARY_TOKENS = 8192;

/** What a compaction would replace: everything before `cut`, summarized into one message. */
export interface CompactionPlan {
  cut: number;
  /** 1 when the history starts with the previous summary (it is folded into the new one). */
  start: number;
  previousSummary: string | undefined;
  /** Estimated tokens of the messages the summary replaces, the previous summary included. */
  replacedTokens: number;
}

/**
 * Where to cut, or `nothing_to_compact` when a summary could not be smaller than what it
 * replaces: even the bare section headings would outweigh it. Pure: asks no model.
 */
export function planCompaction(
  input: Pick<CompactionInput, "session" | "model" | "settings" | "reason" | "declarationOf">,
): Result<CompactionPlan, CodingAgentError> {
  const { session, model } = input;
  const folded = session.fold();
  const messages = folded.messages;
  const ratio = charsPerToken(model);
  const tokensOf = (m: Message) => estimateMessageTokens(m, ratio);
  // A threshold compaction keeps the usual recent budget; a manual or overflow one must shrink
  // whatever the size, so it keeps at most a quarter of the history.
  const budget = keepBudget(model, input.settings);
  const historyTokens = messages.reduce((sum, m) => sum + tokensOf(m), 0);
  const keep = input.reason === "threshold" ? budget : Math.min(budget, Math.floor(historyTokens / 4));
  const cut = findCutIndex(messages, keep, tokensOf);
  const previous = folded.lastCompactionId ? session.getEntry(folded.lastCompactionId) : undefined;
  const previousSummary =
    previous?.type === "compaction" ? (previous as { summary?: string }).summary : undefined;
  // The first message of a compacted context is the previous summary itself; summarize what follows it.
  const start = previousSummary && folded.messageSources[0] === folded.lastCompactionId ? 1 : 0;
  const replacedTokens = messages.slice(0, Math.max(cut, 0)).reduce((sum, m) => sum + tokensOf(m), 0);
  const smallest = summaryMessageTokens(
    withFileLists(
      SUMMARY_SECTIONS,
      fileActivity(messages.slice(start, cut), input.declarationOf),
      previousSummary,
    ),
    ratio,
  );
  if (cut <= start || replacedTokens <= smallest)
    return err({
      type: "nothing_to_compact",
      message:
        cut <= start
          ? "Nothing to compact: the conversation is too short (all of it is the recent part compaction keeps)."
          : `Nothing to compact: the conversation is too short — the ~${replacedTokens} tokens a summary would replace are fewer than an empty summary takes (~${smallest}).`,
    });
  return ok({ cut, start, previousSummary, replacedTokens });
}

/** Tokens the summary takes in the context, as the fold presents it. */
function summaryMessageTokens(summary: string, ratio: number): number {
  return estimateMessageTokens(compactionSummaryMessage(summary, 0), ratio);
}

export async function runCompaction(
  input: CompactionInput,
  plan: CompactionPlan,
): Promise<Result<CompactionOutcome, CompactionFailure>> {
  const { session, model } = input;
  const folded = session.fold();
  const messages = folded.messages;
  const tokensBefore = contextTokens(session, input.fixedTokens, model);
  const ratio = charsPerToken(model);
  const { cut, start, previousSummary } = plan;
  const summarized = messages.slice(start, cut);

  const summaryTokens = Math.min(SUMMARY_TOKENS, model.maxOutput);
  const failedReply = (reply: AssistantMessage) =>
    reply.stopReason === "error" || reply.stopReason === "aborted" || reply.stopReason === "context_overflow";
  const textOf = (reply: AssistantMessage) =>
    reply.content
      .flatMap((c) => (c.type === "text" ? [c.text] : []))
      .join("\n")
      .trim();

  let usage: Usage | undefined;
  let text = "";
  let mode: CompactionOutcome["mode"] = "transcript";
  const conversation = input.conversation;
  const ask = continuationRequestText(start === 1, input.instructions);
  // The conversation as last sent, the ask and the answer must fit the window (after an overflow
  // the provider said they do not, whatever the estimate): then its cache serves all but the ask.
  const fits =
    conversation !== undefined &&
    input.reason !== "overflow" &&
    tokensBefore + estimateTextTokens(ask, ratio) + summaryTokens <= model.contextWindow;
  if (conversation && fits) {
    const reply = await complete(
      model,
      {
        systemPrompt: conversation.systemPrompt,
        tools: conversation.tools,
        messages: [...messages, { role: "user", content: ask, timestamp: Date.now() }],
      },
      {
        ...conversation.streamOptions,
        ...(input.signal ? { signal: input.signal } : {}),
        // The same thinking as the conversation's: a change there would void its cached messages.
        maxTokens: summaryTokens,
      },
    );
    usage = reply.usage;
    if (reply.stopReason === "aborted")
      return err({ type: "model", message: "Compaction failed: the summary request was aborted." });
    // A model that calls a tool instead, answers nothing, or is cut at the output cap (thinking
    // the conversation's settings allow may take the summary's budget) gets the request of its
    // own below: half a summary would be journaled as the whole.
    if (reply.stopReason === "stop") {
      text = textOf(reply);
      if (text) mode = "continuation";
    }
  }
  if (!text) {
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
        maxTokens: summaryTokens,
        // A summary needs no deep reasoning, and models that always think would spend the
        // answer's budget on it: the model's lowest setting (off, between_tools, or its lowest effort).
        reasoning: "off",
      },
    );
    usage = usage ? addUsage(usage, reply.usage) : reply.usage;
    if (failedReply(reply))
      return err({
        type: "model",
        message: `Compaction failed: ${reply.error?.message ?? reply.stopReason}`,
      });
    text = textOf(reply);
  }
  if (!text)
    return err({ type: "model", message: "Compaction failed: the model returned an empty summary." });

  const summary = withFileLists(text, fileActivity(summarized, input.declarationOf), previousSummary);
  // Never journal growth and call it a saving: a summary no smaller than what it replaces stays out.
  const summarySize = summaryMessageTokens(summary, ratio);
  if (summarySize >= plan.replacedTokens)
    return err({
      type: "nothing_to_compact",
      message: `Nothing compacted: the summary (~${summarySize} tokens) would be no smaller than the ~${plan.replacedTokens} tokens of conversation it replaces, so the context is left as it was.`,
      usage: usage ?? emptyUsage(),
    });
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
  return ok({ tokensBefore, tokensAfter, usage: usage ?? emptyUsage(), mode });
}
