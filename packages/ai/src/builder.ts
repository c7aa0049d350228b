// Builds the growing assistant message from provider-neutral calls and emits the matching
// events. Provider adapters only call this sink; they never touch the event stream.
import { excerpt, parseFinalArguments, parseStreamingArguments } from "./arguments.js";
import { addUsage, computeCost, emptyUsage } from "./cost.js";
import type { EventStream } from "./event-stream.js";
import { attachLiveText, LiveText, settleLiveText } from "./live-text.js";
import type {
  AiError,
  AssistantMessage,
  AssistantMessageEvent,
  Citation,
  DoneReason,
  Model,
  ServerToolContent,
  ServerToolUsage,
  TextContent,
  ToolCall,
  Usage,
} from "./types.js";

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** What an adapter may say about the message it is translating. Keys name a provider-side block. */
export interface ChunkSink {
  text(key: string, delta: string): void;
  thinking(key: string, delta: string): void;
  /** Attaches the provider's proof to a thinking block (creating it when it has no text). */
  thinkingSignature(key: string, signature: string, options?: { redacted?: boolean }): void;
  toolCallStart(key: string, call: { id: string; name: string }): void;
  toolCallArgs(key: string, delta: string): void;
  /** A source the provider cited for a text block (opening the block if it has no text yet). */
  textCitation(key: string, citation: Citation): void;
  /** What the provider says about a text block as a whole: its phase, its item id. */
  textMeta(key: string, meta: Pick<TextContent, "phase" | "signature">): void;
  /** A block the provider ran on its side (or its result); called again, it updates the block. */
  serverTool(key: string, block: Omit<ServerToolContent, "type" | "source">): void;
  /** More of a server block: `input` is streamed input JSON, other fields are text appended to raw. */
  serverToolDelta(key: string, field: string, delta: string): void;
  endBlock(key: string): void;
  /** Token counts so far; fields given replace the previous ones (providers report totals). */
  usage(counts: Partial<TokenCounts>): void;
  /** Server-side tool calls billed apart, so far in this response (replaces the previous counts). */
  serverToolUsage(counts: ServerToolUsage): void;
  responseId(id: string): void;
  /** The provider said the message is complete. */
  finish(reason: DoneReason): void;
  /**
   * The provider paused a long turn (Anthropic `pause_turn`): the driver sends the message so far
   * back and the same message goes on with the next response.
   */
  pause(): void;
  /** The provider reported an in-band error. */
  fail(error: AiError): void;
}

interface OpenBlock {
  index: number;
  kind: "text" | "thinking" | "toolCall" | "serverTool";
  /** The growing text of a text or thinking block (its content property reads it). */
  text: LiveText | undefined;
  args: string;
  /** Length of `args` at its last partial parse; see toolCallArgs. */
  parsedAt: number;
}

export type AssistantMessageEventStream = EventStream<AssistantMessageEvent, AssistantMessage>;

export interface BuilderOptions {
  /**
   * Past this many characters (UTF-16 code units) of text, thinking, signatures and tool
   * arguments the reply fails.
   */
  maxChars?: number;
}

export class MessageBuilder implements ChunkSink {
  readonly message: AssistantMessage;
  private readonly open = new Map<string, OpenBlock>();
  private readonly maxChars: number;
  private chars = 0;
  // Deltas nearly always extend the block the previous delta did; skip the map lookup then.
  private lastKey: string | undefined;
  private lastBlock: OpenBlock | undefined;
  private outcome:
    | { kind: "done"; reason: DoneReason }
    | { kind: "pause" }
    | { kind: "error"; error: AiError }
    | undefined;
  /** Usage of the responses before this one, when a paused turn went on in another request. */
  private earlier: Usage | undefined;
  private segment: Usage = emptyUsage();

  constructor(
    private readonly model: Model,
    private readonly out: AssistantMessageEventStream,
    options: BuilderOptions = {},
  ) {
    this.maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
    this.message = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  /** True once any content reached the caller: from then on a retry would duplicate output. */
  get hasContent(): boolean {
    return this.message.content.length > 0;
  }

  get settled(): boolean {
    return this.outcome !== undefined;
  }

  get finished(): DoneReason | undefined {
    return this.outcome?.kind === "done" ? this.outcome.reason : undefined;
  }

  get failure(): AiError | undefined {
    return this.outcome?.kind === "error" ? this.outcome.error : undefined;
  }

  /** The provider paused the turn and the message waits to go on in another request. */
  get paused(): boolean {
    return this.outcome?.kind === "pause";
  }

  /**
   * After a pause: closes what is open and returns the message so far, to send back as the
   * conversation's last message; the next response's blocks and usage add to this message.
   */
  resumeAfterPause(): AssistantMessage {
    this.closeOpenBlocks();
    this.outcome = undefined;
    this.earlier = this.message.usage;
    this.segment = emptyUsage();
    return { ...this.message, content: [...this.message.content], stopReason: "stop" };
  }

  private emit(event: AssistantMessageEvent): void {
    this.out.push(event);
  }

  /**
   * Counts a delta against the reply's bound; false once the bound is passed (the reply has then
   * failed and takes nothing more). An endless stream must end with an error, not in memory.
   * Characters, not UTF-8 bytes: a string's length is free, while measuring bytes on every delta
   * cost ~8% of a stream's throughput; a character is at least one byte either way.
   */
  private admit(delta: string): boolean {
    if (this.chars > this.maxChars) return false;
    this.chars += delta.length;
    if (this.chars <= this.maxChars) return true;
    this.fail({
      type: "reply_too_large",
      message: `The model's reply passed its bound of ${this.maxChars} characters and was stopped (a reply that never ends, or maxReplyChars / maxTokens set too low).`,
      limitChars: this.maxChars,
    });
    return false;
  }

  private block(key: string, kind: OpenBlock["kind"]): OpenBlock {
    if (key === this.lastKey && this.lastBlock) return this.lastBlock;
    const existing = this.open.get(key);
    if (existing) {
      this.lastKey = key;
      this.lastBlock = existing;
      return existing;
    }
    const index = this.message.content.length;
    let text: LiveText | undefined;
    if (kind === "toolCall") {
      this.message.content.push({ type: "toolCall", id: "", name: "", arguments: {} });
    } else if (kind === "serverTool") {
      this.message.content.push({
        type: "serverTool",
        name: "",
        id: "",
        raw: {},
        source: { provider: this.model.provider, api: this.model.api },
      });
    } else {
      // Per delta only the LiveText grows; the content's text property joins on read.
      text = new LiveText();
      const content =
        kind === "text"
          ? { type: "text" as const, text: "" }
          : {
              type: "thinking" as const,
              thinking: "",
              source: { provider: this.model.provider, api: this.model.api },
            };
      attachLiveText(content, kind, text);
      this.message.content.push(content);
    }
    const opened: OpenBlock = { index, kind, text, args: "", parsedAt: 0 };
    this.open.set(key, opened);
    this.lastKey = key;
    this.lastBlock = opened;
    // Server blocks have no events of their own: they are part of the message when it ends.
    if (kind === "serverTool") return opened;
    const type = kind === "text" ? "text_start" : kind === "thinking" ? "thinking_start" : "toolcall_start";
    this.emit({ type, contentIndex: index, partial: this.message });
    return opened;
  }

  text(key: string, delta: string): void {
    this.appendDelta("text", key, delta);
  }

  thinking(key: string, delta: string): void {
    this.appendDelta("thinking", key, delta);
  }

  private appendDelta(kind: "text" | "thinking", key: string, delta: string): void {
    if (!this.admit(delta)) return;
    const b = this.block(key, kind);
    if (b.kind !== kind || !b.text) return;
    b.text.append(delta);
    const type = kind === "text" ? "text_delta" : "thinking_delta";
    this.emit({ type, contentIndex: b.index, delta, partial: this.message });
  }

  thinkingSignature(key: string, signature: string, options?: { redacted?: boolean }): void {
    if (!this.admit(signature)) return;
    const b = this.block(key, "thinking");
    const content = this.message.content[b.index];
    if (content?.type !== "thinking") return;
    content.signature = (content.signature ?? "") + signature;
    if (options?.redacted) content.redacted = true;
  }

  toolCallStart(key: string, call: { id: string; name: string }): void {
    const b = this.block(key, "toolCall");
    const content = this.message.content[b.index];
    if (content?.type !== "toolCall") return;
    if (call.id) content.id = call.id;
    if (call.name) content.name = call.name;
  }

  toolCallArgs(key: string, delta: string): void {
    if (!this.admit(delta)) return;
    const b = this.block(key, "toolCall");
    const content = this.message.content[b.index];
    // A server tool call's input streams the same way; it is parsed when its block ends.
    if (content?.type === "serverTool") b.args += delta;
    if (content?.type !== "toolCall") return;
    b.args += delta;
    // Re-parsing the whole prefix on every delta is quadratic: a 256 KB argument in 16-byte
    // deltas took 42 s. Small arguments are parsed on every delta; past PARSE_EVERY_DELTA_UP_TO
    // only after growing by an eighth, so the total parse work stays a few times the final
    // size. The end of the block parses the whole text exactly, whatever was skipped.
    const length = b.args.length;
    if (length <= PARSE_EVERY_DELTA_UP_TO || length - b.parsedAt >= b.parsedAt / 8) {
      b.parsedAt = length;
      const partial = parseStreamingArguments(b.args);
      if (partial !== undefined) content.arguments = partial;
    }
    this.emit({ type: "toolcall_delta", contentIndex: b.index, delta, partial: this.message });
  }

  textCitation(key: string, citation: Citation): void {
    const b = this.block(key, "text");
    const content = this.message.content[b.index];
    if (content?.type !== "text") return;
    content.citations ??= [];
    content.citations.push(citation);
  }

  textMeta(key: string, meta: Pick<TextContent, "phase" | "signature">): void {
    const b = this.open.get(key);
    const content = b ? this.message.content[b.index] : undefined;
    if (content?.type !== "text") return;
    if (meta.phase) content.phase = meta.phase;
    if (meta.signature) content.signature = meta.signature;
  }

  serverTool(key: string, block: Omit<ServerToolContent, "type" | "source">): void {
    const b = this.block(key, "serverTool");
    const content = this.message.content[b.index];
    if (content?.type !== "serverTool") return;
    Object.assign(content, block);
  }

  serverToolDelta(key: string, field: string, delta: string): void {
    if (!this.admit(delta)) return;
    const b = this.block(key, "serverTool");
    const content = this.message.content[b.index];
    if (content?.type !== "serverTool") return;
    if (field === "input") b.args += delta;
    else {
      const before = content.raw[field];
      content.raw[field] = (typeof before === "string" ? before : "") + delta;
    }
  }

  endBlock(key: string): void {
    const b = this.open.get(key);
    if (!b) return;
    this.open.delete(key);
    this.forgetLast();
    const content = this.message.content[b.index];
    if (!content) return;
    if (content.type === "text") {
      const text = b.text ? settleLiveText(content, "text", b.text) : content.text;
      this.emit({ type: "text_end", contentIndex: b.index, content: text, partial: this.message });
    } else if (content.type === "thinking") {
      const thinking = b.text ? settleLiveText(content, "thinking", b.text) : content.thinking;
      this.emit({ type: "thinking_end", contentIndex: b.index, content: thinking, partial: this.message });
    } else if (content.type === "serverTool") {
      // The input streamed as JSON text; a call whose input does not parse keeps what it had.
      const parsed = b.args.trim() === "" ? undefined : parseFinalArguments(b.args);
      if (parsed?.isOk()) {
        content.input = parsed.value;
        content.raw = { ...content.raw, input: parsed.value };
      }
    } else {
      const parsed = parseFinalArguments(b.args);
      // Damaged arguments spoil this call only: it ends with no arguments and says why, and
      // the rest of the message (its other calls) stands. The loop answers it with an error.
      if (parsed.isOk()) content.arguments = parsed.value;
      else {
        content.arguments = {};
        content.argumentsError = `${parsed.error.message}; the arguments began: ${excerpt(b.args)}`;
      }
      const toolCall: ToolCall = { ...content };
      this.emit({ type: "toolcall_end", contentIndex: b.index, toolCall, partial: this.message });
    }
  }

  usage(counts: Partial<TokenCounts>): void {
    const u = this.segment;
    if (counts.input !== undefined) u.input = counts.input;
    if (counts.output !== undefined) u.output = counts.output;
    if (counts.cacheRead !== undefined) u.cacheRead = counts.cacheRead;
    if (counts.cacheWrite !== undefined) u.cacheWrite = counts.cacheWrite;
    if (counts.reasoning !== undefined) u.reasoning = counts.reasoning;
    this.settleUsage();
  }

  serverToolUsage(counts: ServerToolUsage): void {
    const used = Object.fromEntries(Object.entries(counts).filter(([, n]) => typeof n === "number" && n > 0));
    if (Object.keys(used).length > 0) this.segment.serverTools = used;
    else delete this.segment.serverTools;
    this.settleUsage();
  }

  /** The message's usage: this response's, priced as one request, plus any earlier segment's. */
  private settleUsage(): void {
    const u = this.segment;
    u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite;
    u.cost = computeCost(this.model.cost, u);
    this.message.usage = this.earlier ? addUsage(this.earlier, u) : { ...u };
  }

  responseId(id: string): void {
    this.message.responseId = id;
  }

  finish(reason: DoneReason): void {
    if (this.outcome) return;
    this.outcome = { kind: "done", reason };
  }

  pause(): void {
    if (this.outcome) return;
    this.outcome = { kind: "pause" };
  }

  fail(error: AiError): void {
    if (this.outcome?.kind === "error") return;
    this.outcome = { kind: "error", error };
  }

  private forgetLast(): void {
    this.lastKey = undefined;
    this.lastBlock = undefined;
  }

  private closeOpenBlocks(): void {
    const keys = [...this.open.entries()].sort((a, b) => a[1].index - b[1].index).map(([k]) => k);
    for (const key of keys) this.endBlock(key);
  }

  /** Emits the terminal event. Called by the driver once, whatever happened. */
  complete(): void {
    this.usage({});
    if (this.outcome?.kind === "done") this.closeOpenBlocks();
    const outcome = this.outcome;
    if (outcome?.kind === "done") {
      this.message.stopReason = outcome.reason;
      this.emit({ type: "done", reason: outcome.reason, message: this.message });
      return;
    }
    const error: AiError =
      outcome?.kind === "error"
        ? outcome.error
        : outcome?.kind === "pause"
          ? {
              type: "protocol",
              message: `The provider paused its turn ${MAX_PAUSED_SEGMENTS} times in a row; Keel stopped continuing it.`,
            }
          : { type: "protocol", message: "The stream ended before the provider finished the message." };
    const reason =
      error.type === "aborted" ? "aborted" : error.type === "context_overflow" ? "context_overflow" : "error";
    // Unfinished blocks stay in the partial as they are (their text as plain data); no end
    // events for half-parsed tool calls.
    for (const b of this.open.values()) {
      const content = this.message.content[b.index];
      if (b.text && content) settleLiveText(content, b.kind, b.text);
    }
    this.open.clear();
    this.forgetLast();
    this.message.stopReason = reason;
    this.message.error = error;
    this.emit({ type: "error", reason, error, message: this.message });
  }
}

/** How many times in a row the driver sends a paused turn back to go on (Anthropic `pause_turn`). */
export const MAX_PAUSED_SEGMENTS = 10;

/** Tool arguments up to this length are re-parsed on every delta (see toolCallArgs). */
const PARSE_EVERY_DELTA_UP_TO = 8 * 1024;
