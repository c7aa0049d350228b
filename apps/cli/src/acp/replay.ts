// session/load: the conversation of the session's current branch, as the updates a client would
// have seen live (user and agent messages, thoughts, each tool call with how it ended).
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { type HistoryItem, promptParts } from "@keel/coding-agent";
import { callContent, resultContent, toolKind, toolLocations, toolTitle } from "./tool-calls.js";

const textOf = (content: readonly { type: string; text?: string }[]) =>
  content
    .map((c) => (c.type === "text" ? (c.text ?? "") : ""))
    .filter((t) => t !== "")
    .join("\n");

export function replayUpdates(
  history: readonly HistoryItem[],
  cwd: string,
  describe: (toolName: string, args: Record<string, unknown>) => { summary: string; access?: string },
): SessionUpdate[] {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const { message: m } of history)
    if (m.role === "toolResult") results.set(m.toolCallId, { text: textOf(m.content), isError: m.isError });
  const updates: SessionUpdate[] = [];
  for (const item of history) {
    // Notices left for the model were never said to the user; a summary is not something they typed.
    if (item.kind === "notice") continue;
    if (item.kind === "summary") {
      const text = `Summary of the ${item.of === "compaction" ? "earlier conversation" : "branch left behind"}:\n\n${item.text}`;
      updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
      continue;
    }
    const m = item.message;
    if (m.role === "user") {
      // Reminders and notices the kernel appended are the model's, not what the user typed.
      if (m.synthetic) continue;
      const text = promptParts(m.content).text;
      if (text !== "") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
      continue;
    }
    if (m.role !== "assistant") continue;
    for (const block of m.content) {
      if (block.type === "thinking" && block.thinking !== "")
        updates.push({
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: block.thinking },
        });
      else if (block.type === "text" && block.text !== "")
        updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
      else if (block.type === "toolCall") {
        const facts = {
          toolName: block.name,
          args: block.arguments,
          ...describe(block.name, block.arguments),
        };
        const result = results.get(block.id);
        // The file as it is now is not what a Write replaced: a replayed Write shows its new text alone.
        const started = callContent(facts, cwd);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: block.id,
          title: toolTitle(facts),
          kind: toolKind(facts),
          status: result === undefined ? "failed" : result.isError ? "failed" : "completed",
          locations: toolLocations(facts, cwd),
          rawInput: block.arguments,
          content: resultContent(facts, started, result ?? { text: "", isError: true }),
        });
      }
    }
  }
  return updates;
}
