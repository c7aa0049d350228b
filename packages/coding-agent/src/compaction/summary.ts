// The structured summary that replaces compacted history, and the request that produces it.
import type { Message } from "@keel/ai";
import type { ToolDeclaration } from "@keel/extension-sdk";
import { roleValues } from "../tools/declarations.js";

export const SUMMARY_SYSTEM_PROMPT =
  "You summarize a coding session so another engineer can continue it without the transcript. " +
  "Be concrete: names, paths, commands, values. No preamble.";

/** The sections every summary has: also the smallest summary there can be. */
export const SUMMARY_SECTIONS = `## Goal
## Constraints and preferences
## Progress
### Done
### In progress
## Key decisions
## Next steps`;

/**
 * The summary asked for at the end of the conversation itself (a continuation of the cached
 * request): the model has the whole history before it, so only what to write is said.
 */
export function continuationRequestText(previousSummary: boolean, instructions?: string): string {
  const base = previousSummary
    ? "This conversation is about to be compacted. The summary at its start covers what came before it: update that summary with everything since. Keep what still holds, revise what changed, drop what is obsolete."
    : "This conversation is about to be compacted: summarize it so another engineer can continue it without the transcript.";
  const focus = instructions ? `\n\nFocus: ${instructions}` : "";
  return `${base} Do not call any tool; answer with the summary only. Be concrete: names, paths, commands, values. No preamble.\n\nAnswer in exactly these Markdown sections:\n${SUMMARY_SECTIONS}${focus}`;
}

export function summaryRequestText(
  transcript: string,
  previousSummary: string | undefined,
  instructions?: string,
): string {
  const base = previousSummary
    ? `Update the previous summary with the new part of the conversation. Keep what still holds, revise what changed, drop what is obsolete.\n\n<previous-summary>\n${previousSummary}\n</previous-summary>\n\n<new-conversation>\n${transcript}\n</new-conversation>`
    : `Summarize this conversation.\n\n<conversation>\n${transcript}\n</conversation>`;
  const focus = instructions ? `\n\nFocus: ${instructions}` : "";
  return `${base}\n\nAnswer in exactly these Markdown sections:\n${SUMMARY_SECTIONS}${focus}`;
}

/** Plain-text transcript of messages for the summarizer (tool outputs clipped). */
export function transcriptOf(messages: readonly Message[], clip = 2000): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text =
        typeof m.content === "string"
          ? m.content
          : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n");
      lines.push(`[user]\n${text}`);
    } else if (m.role === "assistant") {
      for (const c of m.content) {
        if (c.type === "text") lines.push(`[assistant]\n${c.text}`);
        else if (c.type === "toolCall")
          lines.push(`[tool call ${c.name}] ${JSON.stringify(c.arguments).slice(0, clip)}`);
      }
    } else {
      const text = m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n");
      lines.push(`[tool result ${m.toolName}${m.isError ? " error" : ""}]\n${text.slice(0, clip)}`);
    }
  }
  return lines.join("\n\n");
}

/**
 * Files read and modified, from the tool calls themselves (not from the model's memory): the
 * `paths` each call's tool declares, read or written by its access.
 */
export function fileActivity(
  messages: readonly Message[],
  declarationOf: (toolName: string) => ToolDeclaration | undefined,
): { read: string[]; modified: string[] } {
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.content) {
      if (c.type !== "toolCall") continue;
      const declared = declarationOf(c.name);
      const into = declared?.access === "write" ? modified : declared?.access === "read" ? read : undefined;
      for (const path of into ? roleValues(c.arguments, declared?.args?.paths) : []) into!.add(path);
    }
  }
  for (const p of modified) read.delete(p);
  return { read: [...read].sort(), modified: [...modified].sort() };
}

/** Merges file lists carried in a previous summary with the new activity. */
export function withFileLists(
  summary: string,
  activity: { read: string[]; modified: string[] },
  previous?: string,
): string {
  const carried = previous ? parseFileLists(previous) : { read: [], modified: [] };
  const modified = [...new Set([...carried.modified, ...activity.modified])].sort();
  const read = [...new Set([...carried.read, ...activity.read])].filter((p) => !modified.includes(p)).sort();
  const body = summary.replace(/\n## Files read[\s\S]*$/m, "").trimEnd();
  return `${body}\n\n## Files read\n${read.map((p) => `- ${p}`).join("\n") || "- (none)"}\n\n## Files modified\n${modified.map((p) => `- ${p}`).join("\n") || "- (none)"}`;
}

function parseFileLists(summary: string): { read: string[]; modified: string[] } {
  const section = (name: string) => {
    const match = summary.match(new RegExp(`## ${name}\\n([\\s\\S]*?)(?:\\n## |$)`));
    return (match?.[1] ?? "")
      .split("\n")
      .map((l) => l.replace(/^- /, "").trim())
      .filter((l) => l && l !== "(none)");
  };
  return { read: section("Files read"), modified: section("Files modified") };
}
