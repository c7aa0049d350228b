// The session tree as flat nodes for /tree pickers: one line per entry that moves the branch.
import { isNodeEntry, type Session } from "@keel/session";
import { promptParts } from "./mentions.js";
import type { SessionTreeNode } from "./types.js";

/** Entries a reader of the conversation does not need (a /tree picker hides them unless asked). */
const INTERNAL = new Set(["op_begin", "op_end", "app_state", "model_change", "capability_notice"]);

/** The argument that says what a call does, for one line. */
function callSummary(name: string, args: Record<string, unknown>): string {
  const arg = ["command", "path", "file_path", "pattern", "query", "url"]
    .map((k) => args[k])
    .find((v) => typeof v === "string");
  return typeof arg === "string" ? `${name}(${oneLine(arg, 40)})` : name;
}

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
    let internal = INTERNAL.has(entry.type);
    if (entry.type === "message") {
      const m = entry.message;
      if (m.role === "user") {
        const { text: said, attached } = promptParts(m.content);
        text = `user: ${oneLine(said)}${attached.length > 0 ? ` [+ ${attached.join(", ")}]` : ""}`;
      } else if (m.role === "assistant") {
        const said = m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join(" ");
        const calls = m.content.flatMap((c) =>
          c.type === "toolCall" ? [callSummary(c.name, c.arguments)] : [],
        );
        const parts = [
          said ? oneLine(said, calls.length ? 50 : 80) : "",
          calls.length ? `● ${calls.join(", ")}` : "",
        ];
        text = `assistant: ${parts.filter(Boolean).join(" ") || `[${m.stopReason}]`}`;
      } else {
        text = `tool ${m.toolName}${m.isError ? " (error)" : ""}`;
        internal = true;
      }
    } else if (entry.type === "notice")
      text = `notice (${entry.source}): ${oneLine(promptParts(entry.message.content).text)}`;
    else if (entry.type === "compaction") text = `compaction (${entry.reason})`;
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
      internal,
      timestamp: entry.timestamp,
    });
  }
  return nodes;
}
