// The session tree as flat nodes for /tree pickers: one line per entry that moves the branch.
import { isNodeEntry, type Session } from "@keel/session";
import type { SessionTreeNode } from "./types.js";

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function sessionTree(session: Session): SessionTreeNode[] {
  const folded = session.fold();
  const onPath = new Set(folded.path);
  const nodes: SessionTreeNode[] = [];
  for (const entry of session.entries()) {
    if (!isNodeEntry(entry)) continue;
    let text: string = entry.type;
    if (entry.type === "message") {
      const m = entry.message;
      if (m.role === "user")
        text = `user: ${oneLine(typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join(" "))}`;
      else if (m.role === "assistant") {
        const said = m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join(" ");
        const calls = m.content.flatMap((c) => (c.type === "toolCall" ? [c.name] : []));
        text = `assistant: ${oneLine(said || (calls.length ? `[${calls.join(", ")}]` : `[${m.stopReason}]`))}`;
      } else text = `tool ${m.toolName}${m.isError ? " (error)" : ""}`;
    } else if (entry.type === "compaction") text = `compaction (${entry.reason})`;
    else if (entry.type === "app_state") text = `state of ${entry.extensionId}`;
    else if (entry.type === "model_change") text = `model → ${entry.provider}/${entry.modelId}`;
    const label = folded.labels[entry.id];
    nodes.push({
      id: entry.id,
      parentId: entry.parentId,
      type: entry.type,
      text,
      ...(label ? { label } : {}),
      onCurrentBranch: onPath.has(entry.id),
      isHead: entry.id === folded.headId,
    });
  }
  return nodes;
}
