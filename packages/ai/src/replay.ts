// Makes a history safe to send to a given model, whichever models produced it: thinking signed by
// another model becomes text (signatures are bound to the model that made them), tool-call ids fit
// the target's rules, orphan calls are closed, and failed assistant turns are left out.
import type {
  Api,
  AssistantMessage,
  Message,
  Model,
  ServerToolContent,
  TextContent,
  ToolResultMessage,
} from "./types.js";

/** Where a history's bytes go. */
export interface ReplayTarget {
  api: Api;
  provider: string;
  /** The model id; given (a Model always gives it), thinking signed by another model is not replayed. */
  id?: string;
}

const MAX_ID = { "anthropic-messages": 64, "openai-completions": 40, "openai-responses": 64 } as const;

/** Tool ids must match ^[A-Za-z0-9_-]+$ and a per-API length; the mapping is stable per history. */
function idNormalizer(api: Api): (id: string) => string {
  const seen = new Map<string, string>();
  const used = new Set<string>();
  const clean = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_ID[api]) || "call";
  return (id) => {
    const known = seen.get(id);
    if (known) return known;
    // Responses ids are "call_id|item_id" (providers/openai-responses.ts): each part obeys the rules.
    const bar = api === "openai-responses" ? id.indexOf("|") : -1;
    const head = clean(bar === -1 ? id : id.slice(0, bar));
    const tail = bar === -1 ? "" : `|${clean(id.slice(bar + 1))}`;
    let next = head;
    for (let n = 2; used.has(next); n++) next = `${head.slice(0, MAX_ID[api] - String(n).length - 1)}_${n}`;
    used.add(next);
    seen.set(id, next + tail);
    return next + tail;
  };
}

export const INTERRUPTED_TOOL_RESULT = "No result: this tool call was interrupted before it finished.";

export function transformMessages(messages: readonly Message[], target: ReplayTarget | Model): Message[] {
  const normalizeId = idNormalizer(target.api);
  const out: Message[] = [];
  let open: { id: string; name: string }[] = [];

  const closeOrphans = (timestamp: number) => {
    for (const call of open) {
      const result: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT }],
        isError: true,
        timestamp,
      };
      out.push(result);
    }
    open = [];
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      closeOrphans(message.timestamp);
      // A refused turn is left out whole: sent again, it would only be refused again.
      if (message.error?.type === "refusal") continue;
      if (
        message.stopReason === "error" ||
        message.stopReason === "aborted" ||
        message.stopReason === "context_overflow"
      ) {
        // Keep text the user saw; drop tool calls that never completed and unsigned thinking.
        const text = message.content.filter((c) => c.type === "text" && c.text.trim() !== "");
        if (text.length > 0) out.push({ ...message, content: text, stopReason: "stop" });
        continue;
      }
      const sameOrigin = message.provider === target.provider && message.api === target.api;
      // Newer models reject (or silently drop) thinking another model signed: drop it cleanly.
      const sameModel = target.id === undefined || message.model === target.id;
      const content: AssistantMessage["content"] = [];
      for (const block of message.content) {
        if (block.type === "thinking") {
          const signedHere =
            sameModel &&
            (block.source === undefined
              ? sameOrigin
              : block.source.provider === target.provider && block.source.api === target.api);
          if (signedHere && (block.signature || block.thinking)) content.push(block);
          else if (block.thinking.trim() !== "") content.push({ type: "text", text: block.thinking });
        } else if (block.type === "toolCall") {
          const id = normalizeId(block.id);
          content.push({ ...block, id });
          open.push({ id, name: block.name });
        } else if (block.type === "serverTool") {
          // The provider that ran it takes its block back; another reads what it did, as text.
          if (block.source.provider === target.provider && block.source.api === target.api)
            content.push(block);
          else {
            const text = serverToolText(block);
            if (text) content.push({ type: "text", text });
          }
        } else if (sameOrigin) {
          content.push(block);
        } else {
          content.push(foreignText(block));
        }
      }
      out.push({ ...message, content });
    } else if (message.role === "toolResult") {
      const id = normalizeId(message.toolCallId);
      const index = open.findIndex((c) => c.id === id);
      if (index === -1) continue; // a result with no call (its call was dropped) would be rejected
      open.splice(index, 1);
      out.push({ ...message, toolCallId: id });
    } else {
      closeOrphans(message.timestamp);
      out.push(message);
    }
  }
  closeOrphans(Date.now());
  return out;
}

/** Text from another provider: its words and the sources it cited, not that provider's own ids. */
function foreignText(block: TextContent): TextContent {
  const citations = block.citations?.map(({ raw: _raw, ...c }) => c);
  return { type: "text", text: block.text, ...(citations?.length ? { citations } : {}) };
}

/** What a server-side tool did, for a model that cannot take the provider's own block. */
function serverToolText(block: ServerToolContent): string | undefined {
  if (block.sources && block.sources.length > 0)
    return `(${block.name} results: ${block.sources.map((s) => (s.title ? `${s.title} <${s.url}>` : s.url)).join("; ")})`;
  if (block.input && Object.keys(block.input).length > 0)
    return `(${block.name} ran on the provider's side: ${JSON.stringify(block.input)})`;
  if (block.error) return `(${block.name} failed: ${block.error})`;
  return undefined;
}
