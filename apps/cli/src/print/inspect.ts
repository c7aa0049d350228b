// keel --read-only: opens a session without its lock and prints its conversation, writing
// nothing. It works on a session another keel holds and on one this keel cannot continue.
import type { Message } from "@keel/ai";
import {
  type CodingAgentOptions,
  defaultSessionDir,
  openChosenSession,
  resolveKeelHome,
} from "@keel/coding-agent";
import type { OutputFormat } from "../args.js";
import { EXIT } from "../exit-codes.js";
import type { Output } from "./output.js";

const TOOL_RESULT_LINES = 20;

function contentText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .flatMap((c) => {
      if (c.type === "text") return [c.text];
      if (c.type === "toolCall") return [`[${c.name}] ${JSON.stringify(c.arguments)}`];
      if (c.type === "image") return ["[image]"];
      return [];
    })
    .join("\n");
}

/** One message as the transcript shows it; long tool output keeps its first lines. */
export function transcriptEntry(message: Message): string {
  const text = contentText(message).trim();
  if (message.role !== "toolResult") return `${message.role}: ${text}`;
  const lines = text.split("\n");
  const shown =
    lines.length > TOOL_RESULT_LINES
      ? [...lines.slice(0, TOOL_RESULT_LINES), `… (${lines.length - TOOL_RESULT_LINES} more lines)`]
      : lines;
  return `${message.toolName}${message.isError ? " (error)" : ""}: ${shown.join("\n")}`;
}

export async function runInspect(
  options: CodingAgentOptions,
  format: OutputFormat,
  output: Output,
): Promise<number> {
  const dir = options.sessionDir ?? defaultSessionDir(options.home ?? resolveKeelHome(), options.cwd);
  const opened = await openChosenSession(
    options.session ?? { mode: "continue", readOnly: true },
    dir,
    options.cwd,
  );
  if (opened.isErr()) {
    output.note(opened.error.message);
    return EXIT.usage;
  }
  const { session } = opened.value;
  try {
    // What opening found (damage, unknown entry types) is the point of looking; "read-only
    // because asked" is not news.
    const notices = session.notices.filter((n) => n.type !== "read_only" || n.reason !== "requested");
    for (const notice of notices) output.note(notice.message);
    const folded = session.fold();
    const header = {
      type: "session",
      sessionId: session.id,
      file: session.path,
      cwd: session.header.cwd,
      ...(folded.name ? { name: folded.name } : {}),
      notices: notices.map((n) => n.message),
    };
    if (format === "text") {
      output.text(`Session ${session.id} (${session.path}), read-only`);
      for (const message of folded.messages) output.text(`\n${transcriptEntry(message)}`);
    } else if (format === "json") {
      output.json({ ...header, messages: folded.messages });
    } else {
      output.json(header);
      for (const message of folded.messages) output.json({ type: "message", sessionId: session.id, message });
    }
    return EXIT.ok;
  } finally {
    await session.close();
  }
}
