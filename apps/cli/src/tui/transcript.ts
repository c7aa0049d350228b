// The conversation as screen items, folded from agent events. Finished items are append-only (they
// are printed once, above the live area); only the streaming tail and running tools stay live.
import type { AssistantMessage, Message } from "@keel/ai";
import type { CodingAgentEvent, HistoryItem } from "@keel/coding-agent";
import { oneLine } from "../format.js";
import { type BlockScan, scanBlocks } from "./markdown.js";

export type NoticeLevel = "info" | "warning" | "error" | "dim" | "success";

export interface ToolItem {
  kind: "tool";
  id: number;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** The call in one line, as its tool describes it. */
  summary: string;
  state: "running" | "ok" | "error";
  output: string;
}

export type Item =
  | { kind: "user"; id: number; text: string }
  | { kind: "text"; id: number; text: string }
  | { kind: "thinking"; id: number; chars: number }
  | ToolItem
  | { kind: "notice"; id: number; level: NoticeLevel; text: string };

export interface LiveView {
  /** The part of the streaming text not yet printed. */
  text: string;
  thinking: boolean;
  tools: ToolItem[];
}

/** Whether an event changed what is printed (publish now) or only the streaming tail (throttle). */
export type Change = "structural" | "delta" | "none";

const MAX_TOOL_OUTPUT = 256 * 1024;

type Content = Extract<Message, { role: "user" }>["content"];

/** Fallback for tests: every text block is the prompt. The controller installs the kernel's. */
function allText(content: Content): { text: string; attached: string[] } {
  return {
    text:
      typeof content === "string"
        ? content
        : content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n"),
    attached: [],
  };
}

/** The assistant message streaming now: how much of each block is printed, how far each is scanned. */
interface Stream {
  message: AssistantMessage;
  committed: Map<number, number>;
  scans: Map<number, BlockScan>;
}

const streamOf = (message: AssistantMessage): Stream => ({ message, committed: new Map(), scans: new Map() });

function trimBlock(text: string): string {
  return text.replace(/^\n+/, "").replace(/\s+$/, "");
}

export class Transcript {
  /** Replaced (never mutated) on every append, so a renderer can tell what is new. */
  done: Item[] = [];
  lastTool: ToolItem | undefined;
  /**
   * The model writes its notes between tool calls into thinking blocks (Claude Sonnet 5.5): a
   * thinking block right before a tool call is shown as text, the way other models' notes are.
   */
  notesInThinking = false;
  /** A prompt's own text and what was attached to it (the kernel's promptParts). */
  promptParts: (content: Content) => { text: string; attached: string[] } = allText;
  /** A `!cmd` notice's parts, when a user message is one (the kernel's shellNoticeParts). */
  shellParts: (text: string) => { command: string; exitCode: string; output: string } | undefined = () =>
    undefined;
  /**
   * A call's one line for the history; the live ones come with tool_start. The controller
   * installs the session's describeToolCall; without one (tests) a call shows its name alone.
   */
  toolSummary: (toolName: string, args: Record<string, unknown>) => string = () => "";
  private nextId = 1;
  private stream: Stream | undefined;
  private tools: ToolItem[] = [];

  private push(item: Item): void {
    this.done = [...this.done, item];
  }

  private id(): number {
    return this.nextId++;
  }

  note(level: NoticeLevel, text: string): void {
    this.push({ kind: "notice", id: this.id(), level, text });
  }

  user(text: string): void {
    this.push({ kind: "user", id: this.id(), text });
  }

  /** A user message as the screen shows it: the prompt with its attachments named, or a `!cmd`. */
  private userMessage(message: Message): void {
    if (message.role !== "user") return;
    const { text, attached } = this.promptParts(message.content);
    const shell = this.shellParts(text);
    if (shell) {
      const item: ToolItem = {
        kind: "tool",
        id: this.id(),
        toolCallId: "",
        name: "!",
        args: { command: shell.command },
        summary: shell.command,
        state: shell.exitCode === "0" ? "ok" : "error",
        output: shell.output,
      };
      this.push(item);
      this.lastTool = item;
      return;
    }
    this.user(attached.length > 0 ? `${text}\n  + ${attached.join(", ")}` : text);
  }

  /**
   * Prints earlier conversation (resume): prompts, answers and one line per tool call; a summary
   * and the notices left for the model as the dim lines they are, never as prompts.
   */
  replay(history: readonly HistoryItem[]): void {
    const messages: Message[] = [];
    for (const item of history) if (item.kind === "conversation") messages.push(item.message);
    const results = new Map<string, { isError: boolean; text: string }>();
    for (const m of messages)
      if (m.role === "toolResult")
        results.set(m.toolCallId, {
          isError: m.isError,
          text: m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n"),
        });
    for (const item of history) {
      if (item.kind === "summary") {
        this.note("dim", summaryLine(item));
        continue;
      }
      if (item.kind === "notice") {
        this.note("dim", noticeLine(item.text));
        continue;
      }
      const m = item.message;
      if (m.role === "user") this.userMessage(m);
      if (m.role !== "assistant") continue;
      for (const [i, block] of m.content.entries()) {
        if (block.type === "text" && block.text.trim())
          this.push({ kind: "text", id: this.id(), text: trimBlock(block.text) });
        if (block.type === "thinking" && this.isNote(block, m.content[i + 1]))
          this.push({ kind: "text", id: this.id(), text: trimBlock(block.thinking) });
        if (block.type === "toolCall") {
          const result = results.get(block.id);
          const item: ToolItem = {
            kind: "tool",
            id: this.id(),
            toolCallId: block.id,
            name: block.name,
            args: block.arguments,
            summary: this.toolSummary(block.name, block.arguments),
            state: result?.isError === false ? "ok" : "error",
            output: result?.text ?? "(no result)",
          };
          this.push(item);
          this.lastTool = item;
        }
      }
    }
  }

  live(): LiveView {
    const content = this.stream?.message.content ?? [];
    const last = content.length - 1;
    const block = content[last];
    const committed = this.stream?.committed.get(last);
    return {
      text: block?.type === "text" ? block.text.slice(committed ?? 0) : "",
      thinking: block?.type === "thinking" && committed === undefined,
      tools: this.tools,
    };
  }

  private isNote(
    block: AssistantMessage["content"][number],
    next: AssistantMessage["content"][number] | undefined,
  ): boolean {
    return (
      this.notesInThinking &&
      block.type === "thinking" &&
      !block.redacted &&
      next?.type === "toolCall" &&
      block.thinking.trim() !== ""
    );
  }

  /** Moves finished blocks of the streaming message to `done`; `final` flushes everything. */
  private commit(final: boolean, endedIndex?: number): void {
    if (!this.stream) return;
    const { message, committed, scans } = this.stream;
    message.content.forEach((block, i) => {
      const complete = final || i < message.content.length - 1 || i === endedIndex;
      if (block.type === "thinking") {
        if (!complete || committed.has(i)) return;
        const next = message.content[i + 1];
        // Whether it is a note shows only when the next block starts: wait for it.
        if (this.notesInThinking && next === undefined && !final) return;
        committed.set(i, 1);
        if (this.isNote(block, next))
          this.push({ kind: "text", id: this.id(), text: trimBlock(block.thinking) });
        else
          this.push({ kind: "thinking", id: this.id(), chars: block.redacted ? 0 : block.thinking.length });
      } else if (block.type === "text") {
        const from = committed.get(i) ?? 0;
        let to = block.text.length;
        if (!complete) {
          const scan = scanBlocks(block.text, scans.get(i));
          scans.set(i, scan);
          to = Math.max(from, scan.end);
        }
        if (to === from) return;
        committed.set(i, to);
        const chunk = trimBlock(block.text.slice(from, to));
        if (chunk) this.push({ kind: "text", id: this.id(), text: chunk });
      }
    });
  }

  private flushTools(all: boolean): void {
    // Finished tools print in start order: one still running holds back those after it.
    while (this.tools.length > 0 && (all || this.tools[0]!.state !== "running")) {
      this.push(this.tools.shift()!);
    }
  }

  private updateTool(toolCallId: string, patch: Partial<ToolItem>): ToolItem | undefined {
    const index = this.tools.findIndex((t) => t.toolCallId === toolCallId);
    if (index === -1) return undefined;
    const next = { ...this.tools[index]!, ...patch };
    this.tools = this.tools.map((t, i) => (i === index ? next : t));
    if (this.lastTool?.toolCallId === toolCallId) this.lastTool = next;
    return next;
  }

  apply(event: CodingAgentEvent): Change {
    switch (event.type) {
      case "message_start":
        if (event.message.role !== "assistant") return "none";
        this.stream = streamOf(event.message);
        return "delta";
      case "message_update": {
        if (event.message.role !== "assistant") return "none";
        if (!this.stream) this.stream = streamOf(event.message);
        this.stream.message = event.message;
        const e = event.event;
        const ended = e.type === "text_end" || e.type === "thinking_end" ? e.contentIndex : undefined;
        const before = this.done;
        this.commit(false, ended);
        return before === this.done ? "delta" : "structural";
      }
      case "message_end":
        if (event.message.role === "user") {
          this.userMessage(event.message);
          return "structural";
        }
        if (event.message.role !== "assistant") return "none";
        if (!this.stream) this.stream = streamOf(event.message);
        this.stream.message = event.message;
        this.commit(true);
        this.stream = undefined;
        return "structural";
      case "tool_start": {
        const item: ToolItem = {
          kind: "tool",
          id: this.id(),
          toolCallId: event.toolCallId,
          name: event.toolName,
          args: event.args,
          summary: event.summary,
          state: "running",
          output: "",
        };
        this.tools = [...this.tools, item];
        this.lastTool = item;
        return "structural";
      }
      case "tool_update":
        return this.updateTool(event.toolCallId, { output: event.text.slice(-MAX_TOOL_OUTPUT) })
          ? "delta"
          : "none";
      case "tool_end": {
        // Ctrl+O shows the tool that finished last (the one whose result was just seen).
        const ended = this.updateTool(event.toolCallId, {
          state: event.isError ? "error" : "ok",
          output: event.text.slice(-MAX_TOOL_OUTPUT),
        });
        if (ended) this.lastTool = ended;
        this.flushTools(false);
        return "structural";
      }
      case "run_end": {
        this.commit(true);
        this.stream = undefined;
        this.tools = this.tools.map((t) => (t.state === "running" ? { ...t, state: "error" } : t));
        this.flushTools(true);
        const { summary } = event;
        if (summary.stoppedBy === "denial")
          this.note("warning", "Stopped after your denial: tell keel what to do instead.");
        else if (summary.stopReason === "aborted") this.note("warning", "Interrupted.");
        else if (summary.error) this.note("error", `Run failed: ${summary.error.message}`);
        else if (summary.stopReason === "max_turns")
          this.note("warning", `Stopped after ${summary.turns} turns (max turns).`);
        return "structural";
      }
      case "diagnostic": {
        const { diagnostic: d } = event;
        const who = d.extensionId === "kernel" ? "" : `${d.extensionId}: `;
        this.note(d.level === "info" ? "dim" : d.level, `${who}${d.message}`);
        return "structural";
      }
      case "notify":
        this.note(event.level, event.message);
        return "structural";
      case "debug":
        this.note("dim", `debug [${event.source}] ${event.message}`);
        return "structural";
      case "recovery":
        this.note("warning", event.text);
        return "structural";
      case "capability_notice":
        this.note("dim", noticeLine(event.text));
        return "structural";
      case "compaction_start":
        this.note("dim", `Compacting context (${event.reason}, ~${event.tokensBefore} tokens)…`);
        return "structural";
      case "compaction_end":
        this.note(
          event.ok ? "success" : "error",
          event.ok
            ? `Compacted ~${event.tokensBefore} → ~${event.tokensAfter} tokens.`
            : `Compaction failed: ${event.error ?? "unknown error"}`,
        );
        return "structural";
      case "retry":
        this.note(
          "dim",
          `Retrying in ${Math.ceil(event.delayMs / 1000)}s (attempt ${event.attempt}): ${event.message}`,
        );
        return "structural";
      default:
        return "none";
    }
  }
}

/** A notice left for the model, as one dim line: its first line and how many follow. */
function noticeLine(text: string): string {
  const lines = text.split("\n").filter((l) => l.trim());
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : "";
  return `${oneLine(lines[0] ?? "", 100)}${more}`;
}

function summaryLine(item: Extract<HistoryItem, { kind: "summary" }>): string {
  const lines = item.text.split("\n").filter((l) => l.trim()).length;
  return item.of === "compaction"
    ? `Summary of the earlier conversation (compacted; ${lines} lines the model reads instead of it).`
    : `Summary of the branch left behind (${lines} lines the model reads).`;
}
