// OpenAI Chat Completions (OpenAI and every compatible server: DeepSeek, Qwen, OpenRouter,
// Ollama, vLLM): request building from a Keel context, and chunk → sink translation.
import type OpenAI from "openai";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionContentPartImage,
  ChatCompletionContentPartText,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ChunkSink } from "../builder.js";
import type { AdapterOptions, ProviderAdapter } from "../driver.js";
import { transformMessages } from "../replay.js";
import { resolveThinking } from "../thinking.js";
import type { Context, DoneReason, Model, OpenAICompat, UserMessage } from "../types.js";
import { endpointOf } from "./base-url.js";
import {
  classifyOpenAIError,
  createClient,
  dataUrl,
  type Framed,
  frame,
  heldToolImages,
  IMAGE_OMITTED,
  imagesOf,
  inBandError,
  promptCacheKey,
  promptCacheRetention,
  toolOutputText,
} from "./openai-shared.js";

/** Compat flags with the defaults a server that says nothing gets. */
export function resolveCompat(
  model: Model,
): Required<Omit<OpenAICompat, "reasoningField" | "thinkingSwitch">> & OpenAICompat {
  const isOpenAI = model.provider === "openai";
  return {
    maxTokensField: isOpenAI ? "max_completion_tokens" : "max_tokens",
    supportsUsageInStreaming: true,
    supportsReasoningEffort: isOpenAI,
    supportsDeveloperRole: false,
    supportsPromptCacheKey: false,
    ...model.compat,
  };
}

type ContentPart = ChatCompletionContentPartText | ChatCompletionContentPartImage;

/** Builds the request body. Exported for tests that check the bytes without a server. */
export function buildChatParams(
  model: Model,
  context: Context,
  options: Omit<AdapterOptions, "signal">,
): ChatCompletionCreateParamsStreaming {
  const compat = resolveCompat(model);
  const params: ChatCompletionCreateParamsStreaming = {
    model: model.id,
    messages: convertMessages(model, context, compat),
    stream: true,
  };
  if (compat.supportsUsageInStreaming !== false) params.stream_options = { include_usage: true };
  const maxTokens = options.maxTokens ?? model.maxOutput;
  if (maxTokens > 0) {
    if (compat.maxTokensField === "max_tokens") params.max_tokens = maxTokens;
    else params.max_completion_tokens = maxTokens;
  }
  if (options.temperature !== undefined && model.samplingParams !== false)
    params.temperature = options.temperature;
  Object.assign(params, thinkingFields(model, compat, options.reasoning));
  if (context.tools && context.tools.length > 0) params.tools = context.tools.map(toChatTool);
  const cacheKey = promptCacheKey(model, options);
  if (cacheKey !== undefined) params.prompt_cache_key = cacheKey;
  const retention = promptCacheRetention(model, options);
  if (retention !== undefined) params.prompt_cache_retention = retention;
  return params;
}

/** The thinking switch and reasoning_effort a chat request carries, per the server's compat. */
function thinkingFields(
  model: Model,
  compat: ReturnType<typeof resolveCompat>,
  requested: AdapterOptions["reasoning"],
): Record<string, unknown> {
  const { choice } = resolveThinking(model, requested);
  if (choice.kind === "default") return {};
  const on = choice.kind === "on";
  const fields: Record<string, unknown> = {};
  if (compat.thinkingSwitch === "thinking-type") fields.thinking = { type: on ? "enabled" : "disabled" };
  else if (compat.thinkingSwitch === "enable_thinking") fields.enable_thinking = on;
  if (compat.supportsReasoningEffort) {
    if (on && choice.effort) fields.reasoning_effort = choice.effort;
    else if (choice.kind === "off" && choice.via === "effort-none") fields.reasoning_effort = "none";
  }
  return fields;
}

function toChatTool(tool: NonNullable<Context["tools"]>[number]): ChatCompletionTool {
  return {
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as Record<string, unknown>,
    },
  };
}

function userContent(model: Model, content: UserMessage["content"]): string | ContentPart[] {
  if (typeof content === "string") return content;
  const acceptsImages = model.input.includes("image");
  return content.map((part): ContentPart => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (!acceptsImages) return { type: "text", text: IMAGE_OMITTED };
    return { type: "image_url", image_url: { url: dataUrl(part) } };
  });
}

function convertMessages(
  model: Model,
  context: Context,
  compat: ReturnType<typeof resolveCompat>,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) {
    const role = compat.supportsDeveloperRole && model.reasoning ? "developer" : "system";
    out.push({ role, content: context.systemPrompt });
  }
  const messages = transformMessages(context.messages, model);
  const toolImages = heldToolImages<ContentPart>((note, images) =>
    out.push({ role: "user", content: [{ type: "text", text: note }, ...images] }),
  );

  for (const message of messages) {
    if (message.role !== "toolResult") toolImages.flush();
    if (message.role === "user") {
      out.push({ role: "user", content: userContent(model, message.content) });
    } else if (message.role === "assistant") {
      const text = message.content
        .filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("\n\n"); // blocks (e.g. foreign thinking turned text) stay apart
      const thinking = message.content
        .filter((c) => c.type === "thinking")
        .map((c) => c.thinking)
        .join("\n\n");
      const calls = message.content.filter((c) => c.type === "toolCall");
      if (text === "" && calls.length === 0) continue; // nothing the server would accept
      const assistant: ChatCompletionAssistantMessageParam = { role: "assistant", content: text || null };
      if (calls.length > 0) {
        assistant.tool_calls = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        }));
      }
      // Only thinking this server produced survives replay; it goes back in the field it came in.
      if (compat.reasoningField && thinking !== "") {
        Object.assign(assistant, { [compat.reasoningField]: thinking });
      }
      out.push(assistant);
    } else {
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: toolOutputText(message.content) });
      const acceptsImages = model.input.includes("image");
      for (const image of imagesOf(message.content)) {
        toolImages.add(
          acceptsImages
            ? { type: "image_url", image_url: { url: dataUrl(image) } }
            : { type: "text", text: IMAGE_OMITTED },
        );
      }
    }
  }
  toolImages.flush();
  return out;
}

/** What one request remembers across its chunks. */
interface ChatState {
  /** The block currently receiving text or thinking, ended when another kind starts. */
  current?: string;
  /** Tool call blocks by the server's index; a new id at a known index starts a new call. */
  tools: Map<number, { key: string; id?: string }>;
  toolCount: number;
  finishReason?: DoneReason;
  /** The server's content filter stopped the reply. */
  filtered?: boolean;
  responseId: boolean;
}

type ChatChunk = Framed<ChatCompletionChunk, ChatState>;

/** Servers name the reasoning delta differently; both spellings carry thinking text. */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/** A typed content part some servers stream (Mistral: `{type: "thinking", thinking: [{type: "text", …}]}`). */
interface TypedPart {
  type?: string;
  text?: unknown;
  thinking?: unknown;
}

/** The text of a typed part: its own, or that of the text parts a thinking part holds. */
function partText(part: TypedPart): string {
  if (part.type === "text") return typeof part.text === "string" ? part.text : "";
  if (part.type !== "thinking") return "";
  const inner = part.thinking;
  if (typeof inner === "string") return inner;
  if (!Array.isArray(inner)) return "";
  return inner.map((p: TypedPart) => (typeof p?.text === "string" ? p.text : "")).join("");
}

interface CompatUsage {
  prompt_cache_hit_tokens?: number;
}

function switchTo(state: ChatState, key: string, sink: ChunkSink): void {
  if (state.current !== undefined && state.current !== key) sink.endBlock(state.current);
  state.current = key;
}

function finish(state: ChatState, sink: ChunkSink): void {
  if (state.current !== undefined) sink.endBlock(state.current);
  state.current = undefined;
  // Tool calls end here, in order, so invalid arguments surface before the message is done.
  for (const { key } of [...state.tools.values()]) sink.endBlock(key);
  sink.finish(state.finishReason ?? "stop");
}

function translateChunk(chunk: ChatCompletionChunk, state: ChatState, sink: ChunkSink): void {
  const inBand = (chunk as { error?: { code?: unknown; message?: unknown } }).error;
  if (inBand) {
    sink.fail(
      inBandError(inBand.code, typeof inBand.message === "string" ? inBand.message : JSON.stringify(inBand)),
    );
    return;
  }
  if (!state.responseId && chunk.id) {
    sink.responseId(chunk.id);
    state.responseId = true;
  }
  for (const choice of chunk.choices ?? []) {
    const delta = choice.delta ?? {};
    const reasoning = (delta as ReasoningDelta).reasoning_content ?? (delta as ReasoningDelta).reasoning;
    if (reasoning) {
      switchTo(state, "thinking", sink);
      sink.thinking("thinking", reasoning);
    }
    // Content is a string, or (Mistral) a list of typed parts: text, and thinking holding text.
    const content = delta.content as string | TypedPart[] | null | undefined;
    if (typeof content === "string") {
      if (content) {
        switchTo(state, "text", sink);
        sink.text("text", content);
      }
    } else if (Array.isArray(content)) {
      for (const part of content) {
        const text = partText(part);
        if (!text) continue;
        const kind = part.type === "thinking" ? "thinking" : "text";
        switchTo(state, kind, sink);
        if (kind === "thinking") sink.thinking("thinking", text);
        else sink.text("text", text);
      }
    }
    if (delta.refusal) {
      switchTo(state, "text", sink);
      sink.text("text", delta.refusal);
    }
    for (const call of delta.tool_calls ?? []) {
      if (state.current !== undefined) {
        sink.endBlock(state.current);
        state.current = undefined;
      }
      let known = state.tools.get(call.index);
      if (!known || (call.id && known.id && call.id !== known.id)) {
        // Some servers reuse index 0 for every call; a new id means the previous call is complete.
        if (known) sink.endBlock(known.key);
        known = { key: `tool:${state.toolCount++}`, id: call.id };
        state.tools.set(call.index, known);
      }
      if (call.id) known.id = call.id;
      if (call.id || call.function?.name) {
        sink.toolCallStart(known.key, { id: call.id ?? "", name: call.function?.name ?? "" });
      }
      if (call.function?.arguments) sink.toolCallArgs(known.key, call.function.arguments);
    }
    if (choice.finish_reason) {
      if (choice.finish_reason === "content_filter") {
        // Reported when the stream ends, after the usage chunk (the tokens so far are billed).
        state.filtered = true;
        continue;
      }
      state.finishReason =
        choice.finish_reason === "length"
          ? "length"
          : choice.finish_reason === "tool_calls" ||
              choice.finish_reason === "function_call" ||
              state.tools.size > 0
            ? "toolUse"
            : "stop";
    }
  }
  if (chunk.usage) {
    const u = chunk.usage;
    const cached = u.prompt_tokens_details?.cached_tokens ?? (u as CompatUsage).prompt_cache_hit_tokens ?? 0;
    sink.usage({
      input: Math.max(0, (u.prompt_tokens ?? 0) - cached),
      output: u.completion_tokens ?? 0,
      cacheRead: cached,
      reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
    });
  }
}

export const openaiCompletionsAdapter: ProviderAdapter<ChatChunk> = {
  api: "openai-completions",

  async open(model, context, options) {
    const client: OpenAI = createClient(model, options);
    const params = buildChatParams(model, context, options);
    options.onPayload?.(params);
    const stream = await client.chat.completions.create(params, { signal: options.signal });
    const state: ChatState = { tools: new Map(), toolCount: 0, responseId: false };
    return frame(stream, state, options.signal);
  },

  translate(framed, sink) {
    if (framed.kind === "end") {
      // Usage arrives in a chunk after finish_reason (and some servers send none), so the
      // message completes when the stream ends, never at finish_reason.
      if (framed.state.filtered)
        sink.fail({ type: "refusal", message: "The provider stopped the response with its content filter." });
      else if (framed.state.finishReason !== undefined) finish(framed.state, sink);
      return;
    }
    translateChunk(framed.chunk, framed.state, sink);
  },

  classify: classifyOpenAIError,
  endpoint: (model) => endpointOf(model, "/chat/completions"),
};
