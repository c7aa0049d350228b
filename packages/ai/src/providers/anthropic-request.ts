// Builds the Anthropic Messages request body from a Keel context: history conversion,
// tools, extended thinking and prompt-cache breakpoints.
import type Anthropic from "@anthropic-ai/sdk";
import { transformMessages } from "../replay.js";
import type {
  AssistantMessage,
  Context,
  ImageContent,
  Model,
  StreamOptions,
  TextContent,
  ToolResultMessage,
} from "../types.js";
import { thinkingParams } from "./anthropic-thinking.js";

export { AnthropicRequestError, requestHeaders } from "./anthropic-thinking.js";

type Params = Anthropic.MessageCreateParamsStreaming;
type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type CacheControl = Anthropic.CacheControlEphemeral;
type ToolResultContent = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

export type RequestOptions = Pick<
  StreamOptions,
  "maxTokens" | "temperature" | "reasoning" | "cacheRetention" | "headers"
>;

/** The SDK's default API version (2026-10-21) rejects sampling parameters; 2023-06-01 still takes them. */
const TEMPERATURE_API_VERSION = "2023-06-01";

export function buildParams(model: Model, context: Context, options: RequestOptions): Params {
  const maxTokens = options.maxTokens ?? model.maxOutput;
  // Trailing one-request messages (reminders) are converted on their own, so the history's cache
  // breakpoint lands on the last message the next request will contain too.
  const lastKept = context.messages.findLastIndex((m) => !(m.role === "user" && m.synthetic));
  const history = convertMessages(context.messages.slice(0, lastKept + 1), model);
  const synthetic = convertMessages(context.messages.slice(lastKept + 1), model);
  const params: Params & { temperature?: number } = {
    model: model.id,
    max_tokens: maxTokens,
    messages: [...history, ...synthetic],
    stream: true,
  };
  if (context.systemPrompt) params.system = [{ type: "text", text: context.systemPrompt }];
  if (context.tools && context.tools.length > 0) {
    params.tools = context.tools.map((tool) => {
      // TypeBox schemas are JSON Schema; Anthropic only insists that the root is an object.
      const { type: _type, ...schema } = tool.parameters as Record<string, unknown>;
      return { name: tool.name, description: tool.description, input_schema: { ...schema, type: "object" } };
    });
  }
  const server = serverTools(model, context.serverTools);
  if (server.length > 0) params.tools = [...(params.tools ?? []), ...server];
  const thinking = thinkingParams(model, options.reasoning, maxTokens);
  Object.assign(params, thinking);
  if (
    !thinking.thinking &&
    model.samplingParams !== false &&
    options.temperature !== undefined &&
    apiVersion(model, options) === TEMPERATURE_API_VERSION
  ) {
    // Sent only where the API accepts it: without thinking, on a model pinned to the old API version.
    params.temperature = options.temperature;
  }
  if (options.cacheRetention !== "none") {
    // The previous request's last message: the one before the model's latest reply.
    const reply = history.findLastIndex((m) => m.role === "assistant");
    const previous = reply > 0 && reply - 1 < history.length - 1 ? history[reply - 1] : undefined;
    addCacheBreakpoints(
      params,
      history.at(-1),
      previous,
      options.cacheRetention === "long" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" },
    );
  }
  return params;
}

/** The anthropic-version a request is pinned to through model or call headers, if any. */
function apiVersion(model: Model, options: RequestOptions): string | undefined {
  const headers = { ...model.headers, ...options.headers };
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === "anthropic-version") return value;
  return undefined;
}

/**
 * Marks the growing prefixes so each request reads what the previous one wrote: system, tools,
 * the history's last message (never a one-request reminder after it), and — the fourth of the
 * API's four — the previous request's last message. A lookup reads back at most ~20 blocks from a
 * marker: a reply with many parallel tool calls (and their results) puts more than that between
 * the last message and the previous request's, which the second history marker still reaches.
 */
function addCacheBreakpoints(
  params: Params,
  lastMessage: MessageParam | undefined,
  previousMessage: MessageParam | undefined,
  cacheControl: CacheControl,
): void {
  const system = Array.isArray(params.system) ? params.system.at(-1) : undefined;
  if (system) system.cache_control = cacheControl;
  const lastTool = params.tools?.at(-1);
  if (lastTool) lastTool.cache_control = cacheControl;
  if (previousMessage) markMessage(previousMessage, cacheControl);
  if (lastMessage) markMessage(lastMessage, cacheControl);
}

function markMessage(lastMessage: MessageParam, cacheControl: CacheControl): void {
  if (typeof lastMessage.content === "string") {
    lastMessage.content = [{ type: "text", text: lastMessage.content }];
  }
  // Thinking blocks cannot carry a breakpoint, nor are server blocks sent back for one; the last
  // other block covers them too.
  for (let i = lastMessage.content.length - 1; i >= 0; i--) {
    const block = lastMessage.content[i];
    if (!block || !MARKABLE.has(block.type)) continue;
    (block as { cache_control?: CacheControl }).cache_control = cacheControl;
    return;
  }
}

/** Blocks Keel builds itself, where a cache breakpoint may go. */
const MARKABLE = new Set(["text", "image", "tool_use", "tool_result", "document"]);

function convertMessages(messages: Context["messages"], model: Model): MessageParam[] {
  const out: MessageParam[] = [];
  let pendingResults: Anthropic.ToolResultBlockParam[] = [];
  const flushResults = () => {
    if (pendingResults.length === 0) return;
    // All results of one tool batch go back in a single user turn, as the API expects.
    out.push({ role: "user", content: pendingResults });
    pendingResults = [];
  };

  for (const message of transformMessages(messages, model)) {
    if (message.role === "toolResult") {
      pendingResults.push(convertToolResult(message, model));
      continue;
    }
    flushResults();
    if (message.role === "user") {
      if (typeof message.content === "string") {
        // Always blocks: the last message gets a cache breakpoint, and the same message must
        // serialize identically whether or not it is last, or the cached prefix breaks.
        if (message.content !== "")
          out.push({ role: "user", content: [{ type: "text", text: message.content }] });
        continue;
      }
      const content = convertUserContent(message.content, model);
      if (content.length > 0) out.push({ role: "user", content });
    } else {
      const content = convertAssistantContent(message);
      if (content.length > 0) out.push({ role: "assistant", content });
    }
  }
  flushResults();
  return out;
}

function convertUserContent(content: (TextContent | ImageContent)[], model: Model): ToolResultContent[] {
  const out: ToolResultContent[] = [];
  for (const block of content) {
    if (block.type === "text") {
      // The API rejects empty text blocks.
      if (block.text !== "") out.push({ type: "text", text: block.text });
    } else if (model.input.includes("image")) {
      out.push({
        type: "image",
        source: {
          type: "base64",
          media_type: block.mimeType as Anthropic.Base64ImageSource["media_type"],
          data: block.data,
        },
      });
    } else {
      out.push({ type: "text", text: `(An image was omitted: ${model.id} does not accept images.)` });
    }
  }
  return out;
}

/** Anthropic's server tools for what the request offers, where the model has them. */
function serverTools(model: Model, wanted: Context["serverTools"]): Anthropic.ToolUnion[] {
  const offered = new Set(model.serverTools ?? []);
  const out: Anthropic.ToolUnion[] = [];
  for (const tool of wanted ?? []) {
    if (!offered.has(tool.name)) continue;
    const limits = {
      ...(tool.maxUses !== undefined ? { max_uses: tool.maxUses } : {}),
      ...(tool.allowedDomains?.length ? { allowed_domains: tool.allowedDomains } : {}),
      // The API takes allowed or blocked domains, not both.
      ...(tool.blockedDomains?.length && !tool.allowedDomains?.length
        ? { blocked_domains: tool.blockedDomains }
        : {}),
    };
    if (tool.name === "web_search") out.push({ type: "web_search_20250305", name: "web_search", ...limits });
    else out.push({ type: "web_fetch_20250910", name: "web_fetch", citations: { enabled: true }, ...limits });
  }
  return out;
}

function convertAssistantContent(message: AssistantMessage): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text === "") continue;
      // Citations go back as the API gave them (after replay only this API's are left).
      const citations = (block.citations ?? []).flatMap((c) => (c.raw ? [c.raw] : []));
      out.push(
        citations.length > 0
          ? ({ type: "text", text: block.text, citations } as unknown as ContentBlockParam)
          : { type: "text", text: block.text },
      );
    } else if (block.type === "serverTool") {
      // A server block goes back exactly as it came, with the input it streamed.
      out.push({
        ...block.raw,
        ...(block.input ? { input: block.input } : {}),
      } as unknown as ContentBlockParam);
    } else if (block.type === "thinking") {
      if (block.redacted && block.signature) {
        out.push({ type: "redacted_thinking", data: block.signature });
      } else if (block.signature) {
        out.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
      } else if (block.thinking.trim() !== "") {
        // Unsigned thinking would be rejected as a thinking block; keep what the model said.
        out.push({ type: "text", text: block.thinking });
      }
    } else {
      out.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
    }
  }
  return out;
}

function convertToolResult(message: ToolResultMessage, model: Model): Anthropic.ToolResultBlockParam {
  const content = convertUserContent(message.content, model);
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId,
    // An empty error result is rejected by the API, so say that there was nothing.
    content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }],
    is_error: message.isError,
  };
}
