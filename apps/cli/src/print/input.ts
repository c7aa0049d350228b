// --input-format stream-json: user messages as NDJSON on stdin, one run each, for programs that
// drive keel across turns. A line that is not a user message stops the reading with a note that
// names it (the runs before it stand); the shape is InputLine in schema.ts. Claude Code's shape,
// {"type":"user","message":{"role":"user","content":…}}, is read as the same thing, so scripts
// written for `claude -p --input-format stream-json` run unchanged.
import { err, ok, type Result } from "neverthrow";
import type { UsageError } from "../args.js";

export type InputItem =
  | { kind: "prompt"; text: string; line: number }
  | { kind: "invalid"; error: UsageError };

/** Why a line is not a prompt: `message` completes "stdin line N …". */
type LineError = { type: "not_a_prompt"; message: string };
type Parsed = Result<string, LineError>;

const notPrompt = (message: string): Parsed => err({ type: "not_a_prompt", message });

const nonEmpty = (text: string): Parsed => (text.trim() === "" ? notPrompt("has empty content") : ok(text));

function promptOf(value: unknown): Parsed {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return notPrompt("is not a JSON object");
  const { type, content, ...rest } = value as Record<string, unknown>;
  if (type !== "user") return notPrompt(`has type ${JSON.stringify(type)}; only "user" lines are read`);
  if (content === undefined && "message" in rest) return claudeMessage(rest);
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return notPrompt(`has fields keel does not read (${extra.join(", ")}); a user line has type and content`);
  return contentText(content);
}

/** Fields Claude Code's user lines carry that say nothing about the prompt. */
const CLAUDE_LINE_FIELDS = new Set(["message", "session_id", "parent_tool_use_id", "uuid"]);

function claudeMessage(rest: Record<string, unknown>): Parsed {
  const extra = Object.keys(rest).filter((k) => !CLAUDE_LINE_FIELDS.has(k));
  if (extra.length > 0) return notPrompt(`has fields keel does not read (${extra.join(", ")})`);
  const message = rest.message as { role?: unknown; content?: unknown } | null;
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return notPrompt("has a message that is not an object");
  if (message.role !== undefined && message.role !== "user")
    return notPrompt(`has message.role ${JSON.stringify(message.role)}; only "user" is read`);
  return contentText(message.content);
}

function contentText(content: unknown): Parsed {
  if (typeof content === "string") return nonEmpty(content);
  if (!Array.isArray(content)) return notPrompt("needs content: a string or an array of text blocks");
  const texts: string[] = [];
  for (const block of content) {
    const b = block as { type?: unknown; text?: unknown };
    if (b?.type !== "text" || typeof b.text !== "string")
      return notPrompt('has a content block that is not {"type":"text","text":"…"} (only text is accepted)');
    texts.push(b.text);
  }
  return nonEmpty(texts.join("\n"));
}

/** The stdin lines as prompts, in order; ends at the end of stdin or at the first invalid line. */
export function readInputLines(stdin: NodeJS.ReadableStream = process.stdin): {
  items: AsyncGenerator<InputItem>;
  /** Stops reading (keel is stopping). */
  close(): void;
} {
  // node:readline only when stream-json input is read: a plain -p start does not load it.
  const rl = process.getBuiltinModule("node:readline").createInterface({
    input: stdin,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  // Taken now, not when the first run ends: readline's iterator buffers lines from its creation,
  // and lines that arrive while the agent opens would otherwise be emitted to no one.
  const pending = rl[Symbol.asyncIterator]();
  async function* items(): AsyncGenerator<InputItem> {
    let n = 0;
    for await (const raw of { [Symbol.asyncIterator]: () => pending }) {
      n++;
      if (raw.trim() === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (e) {
        yield invalid(n, `is not JSON (${e instanceof Error ? e.message : String(e)})`);
        return;
      }
      const prompt = promptOf(parsed);
      if (prompt.isErr()) {
        yield invalid(n, prompt.error.message);
        return;
      }
      yield { kind: "prompt", text: prompt.value, line: n };
    }
  }
  return { items: items(), close: () => rl.close() };
}

function invalid(line: number, why: string): InputItem {
  return {
    kind: "invalid",
    error: {
      type: "usage",
      message: `stdin line ${line} ${why}; expected {"type":"user","content":"…"} (or Claude Code's {"type":"user","message":{"role":"user","content":"…"}}). Reading stopped there.`,
    },
  };
}
