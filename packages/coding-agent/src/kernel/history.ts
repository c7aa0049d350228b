// The conversation as front ends replay it: each message of the head's context with what it is.
// A compaction's summary and the notices Keel or an extension left for the model are user-role
// messages to the model, but nobody typed them; a resumed transcript must not show them as prompts.
import type { Message } from "@keel/ai";
import { isUnknownEntry, type SessionEntry } from "@keel/session";
import type { HistoryItem } from "./types.js";
import { USER_SHELL_SOURCE } from "./user-shell.js";

const textOf = (message: Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");

/** Pure: the folded context (messages and the entry each came from) and a lookup of entries. */
export function historyOf(
  folded: { messages: readonly Message[]; messageSources: readonly string[] },
  entryOf: (id: string) => SessionEntry | undefined,
): HistoryItem[] {
  return folded.messages.map((message, i) => {
    const source = folded.messageSources[i];
    const found = source === undefined ? undefined : entryOf(source);
    // An entry of a newer Keel's kind folds to nothing of its own: shown as conversation.
    const entry = found === undefined || isUnknownEntry(found) ? undefined : found;
    switch (entry?.type) {
      case "compaction":
        return { kind: "summary", of: "compaction", text: entry.summary, message };
      case "branch_summary":
        return { kind: "summary", of: "branch", text: entry.summary, message };
      case "capability_notice":
        return { kind: "notice", source: entry.source, text: textOf(message), message };
      case "notice":
        // What the user ran with `!` is theirs: part of the conversation, as they saw it live.
        if (entry.source === USER_SHELL_SOURCE) return { kind: "conversation", message };
        return { kind: "notice", source: entry.source, text: textOf(message), message };
      default:
        return { kind: "conversation", message };
    }
  });
}
