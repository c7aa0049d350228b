// OpenAI Responses: request building from a Keel context (stateless, store: false, reasoning
// carried forward as encrypted items) and stream event → sink translation.
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import type { ChunkSink } from "../builder.js";
import type { AdapterOptions, ProviderAdapter } from "../driver.js";
import { transformMessages } from "../replay.js";
import { resolveThinking } from "../thinking.js";
import type { AssistantMessage, Context, Model, ReasoningEffort, UserMessage } from "../types.js";
import { endpointOf } from "./base-url.js";
import {
  classifyOpenAIError,
  createClient,
  dataUrl,
  type Framed,
  frame,
  IMAGE_OMITTED,
  imagesOf,
  inBandError,
  promptCacheRetention,
  textOf,
} from "./openai-shared.js";

/**
 * A Responses tool call is named twice: `call_id` pairs it with its output, the item id
 * (`fc_…`) pairs it with the reasoning that produced it. Keel's tool call id keeps both.
 */
export function joinToolCallId(callId: string, itemId: string | undefined): string {
  return itemId ? `${callId}|${itemId}` : callId;
}

export function splitToolCallId(id: string): { callId: string; itemId?: string } {
  const bar = id.indexOf("|");
  if (bar === -1) return { callId: id };
  return { callId: id.slice(0, bar), itemId: id.slice(bar + 1) || undefined };
}

/** Builds the request body. Exported for tests that check the bytes without a server. */
export function buildResponsesParams(
  model: Model,
  context: Context,
  options: Omit<AdapterOptions, "signal">,
): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = {
    model: model.id,
    input: convertInput(model, context),
    stream: true,
    // Stateless: the full history goes every time, so nothing needs storing server-side.
    store: false,
  };
  if (context.systemPrompt) params.instructions = context.systemPrompt;
  if (context.tools && context.tools.length > 0) params.tools = context.tools.map(toResponsesTool);
  const maxTokens = options.maxTokens ?? model.maxOutput;
  if (maxTokens > 0) params.max_output_tokens = maxTokens;
  if (options.temperature !== undefined && model.samplingParams !== false)
    params.temperature = options.temperature;
  if (model.reasoning) {
    // Without store, reasoning can only be carried to the next turn encrypted.
    params.include = ["reasoning.encrypted_content"];
    const effort = reasoningEffort(model, options.reasoning);
    if (effort !== undefined) params.reasoning = { effort: effort as "low", summary: "auto" };
  }
  // Responses is OpenAI's own API: cache routing by session applies whatever the provider id.
  if (options.sessionId && options.cacheRetention !== "none") params.prompt_cache_key = options.sessionId;
  const retention = promptCacheRetention(model, options);
  if (retention !== undefined) params.prompt_cache_retention = retention;
  return params;
}

/** The reasoning.effort a request sends ("none" turns reasoning off), or undefined for the default. */
export function reasoningEffort(
  model: Model,
  requested: AdapterOptions["reasoning"],
): ReasoningEffort | undefined {
  const { choice } = resolveThinking(model, requested);
  if (choice.kind === "off") return choice.via === "effort-none" ? "none" : undefined;
  return choice.kind === "on" ? choice.effort : undefined;
}

function toResponsesTool(tool: NonNullable<Context["tools"]>[number]): FunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as Record<string, unknown>,
    strict: false,
  };
}

function imagePart(model: Model, image: { data: string; mimeType: string }): ResponseInputContent {
  return model.input.includes("image")
    ? { type: "input_image", image_url: dataUrl({ type: "image", ...image }), detail: "auto" }
    : { type: "input_text", text: IMAGE_OMITTED };
}

function userInput(model: Model, content: UserMessage["content"]): ResponseInputItem {
  if (typeof content === "string") return { role: "user", content };
  return {
    role: "user",
    content: content.map((part) =>
      part.type === "text" ? { type: "input_text", text: part.text } : imagePart(model, part),
    ),
  };
}

/** A serialized reasoning item from a thinking signature, or undefined when it is not one. */
function reasoningItem(signature: string | undefined): ResponseInputItem | undefined {
  if (!signature) return undefined;
  try {
    const item = JSON.parse(signature) as { type?: unknown };
    return item && item.type === "reasoning" ? (item as ResponseInputItem) : undefined;
  } catch {
    return undefined;
  }
}

function assistantInput(model: Model, message: AssistantMessage, out: ResponseInputItem[]): void {
  // Item ids only mean something to the model that produced them (they pair calls with reasoning).
  const sameModel =
    message.provider === model.provider && message.api === model.api && message.model === model.id;
  let text = "";
  const flushText = () => {
    if (text !== "") out.push({ type: "message", role: "assistant", content: text });
    text = "";
  };
  for (const block of message.content) {
    if (block.type === "text") {
      text += text === "" ? block.text : `\n\n${block.text}`;
    } else if (block.type === "thinking") {
      // After replay only this API's own thinking is left; without a usable item it cannot be sent.
      const item = reasoningItem(block.signature);
      if (!item) continue;
      flushText();
      out.push(item);
    } else {
      flushText();
      const { callId, itemId } = splitToolCallId(block.id);
      out.push({
        type: "function_call",
        call_id: callId,
        name: block.name,
        arguments: JSON.stringify(block.arguments),
        ...(sameModel && itemId ? { id: itemId } : {}),
      });
    }
  }
  flushText();
}

function convertInput(model: Model, context: Context): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  let pendingImages: ResponseInputContent[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({
      role: "user",
      content: [{ type: "input_text", text: "Images returned by the tools above:" }, ...pendingImages],
    });
    pendingImages = [];
  };
  for (const message of transformMessages(context.messages, model)) {
    if (message.role !== "toolResult") flushImages();
    if (message.role === "user") out.push(userInput(model, message.content));
    else if (message.role === "assistant") assistantInput(model, message, out);
    else {
      const images = imagesOf(message.content);
      const text = textOf(message.content);
      out.push({
        type: "function_call_output",
        call_id: splitToolCallId(message.toolCallId).callId,
        output: text !== "" ? text : images.length > 0 ? "(see the image below)" : "(no output)",
      });
      for (const image of images) pendingImages.push(imagePart(model, image));
    }
  }
  flushImages();
  return out;
}

/** What one request remembers across its events. */
interface ResponsesState {
  /** Function call items whose arguments arrived as deltas (others bring them at item done). */
  streamedArgs: Set<string>;
  sawToolCall: boolean;
}

type ResponsesChunk = Framed<ResponseStreamEvent, ResponsesState>;

function usageOf(usage: ResponseUsage | null | undefined, sink: ChunkSink): void {
  if (!usage) return;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.input_tokens_details?.cache_write_tokens ?? 0;
  sink.usage({
    input: Math.max(0, usage.input_tokens - cached - cacheWrite),
    output: usage.output_tokens,
    cacheRead: cached,
    cacheWrite,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
  });
}

function translateEvent(event: ResponseStreamEvent, state: ResponsesState, sink: ChunkSink): void {
  switch (event.type) {
    case "response.created":
      sink.responseId(event.response.id);
      return;
    case "response.output_item.added": {
      const item = event.item;
      if (item.type === "function_call") {
        state.sawToolCall = true;
        const key = item.id ?? item.call_id;
        sink.toolCallStart(key, { id: joinToolCallId(item.call_id, item.id), name: item.name });
        if (item.arguments) {
          state.streamedArgs.add(key);
          sink.toolCallArgs(key, item.arguments);
        }
      }
      return;
    }
    case "response.output_text.delta":
    case "response.refusal.delta":
      sink.text(`${event.item_id}:${event.content_index}`, event.delta);
      return;
    case "response.reasoning_summary_part.added":
      // Summary parts are separate paragraphs of one thinking block.
      if (event.summary_index > 0) sink.thinking(event.item_id, "\n\n");
      return;
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      sink.thinking(event.item_id, event.delta);
      return;
    case "response.function_call_arguments.delta":
      state.streamedArgs.add(event.item_id);
      sink.toolCallArgs(event.item_id, event.delta);
      return;
    case "response.output_item.done": {
      const item = event.item;
      if (item.type === "reasoning") {
        // The whole item (with encrypted_content) is what the next request must send back.
        sink.thinkingSignature(item.id, JSON.stringify(item));
        sink.endBlock(item.id);
      } else if (item.type === "message") {
        for (let i = 0; i < item.content.length; i++) sink.endBlock(`${item.id}:${i}`);
      } else if (item.type === "function_call") {
        const key = item.id ?? item.call_id;
        if (!state.streamedArgs.has(key)) {
          sink.toolCallStart(key, { id: joinToolCallId(item.call_id, item.id), name: item.name });
          if (item.arguments) sink.toolCallArgs(key, item.arguments);
        }
        sink.endBlock(key);
      }
      return;
    }
    case "response.completed": {
      usageOf(event.response.usage, sink);
      const toolUse = state.sawToolCall || event.response.output.some((o) => o.type === "function_call");
      sink.finish(toolUse ? "toolUse" : "stop");
      return;
    }
    case "response.incomplete": {
      usageOf(event.response.usage, sink);
      const reason = event.response.incomplete_details?.reason;
      if (reason === "max_output_tokens") sink.finish("length");
      else
        sink.fail({
          type: "protocol",
          message: `The response is incomplete: ${reason ?? "no reason given"}.`,
        });
      return;
    }
    case "response.failed": {
      usageOf(event.response.usage, sink);
      const error = event.response.error;
      sink.fail(inBandError(error?.code, error?.message ?? "the response failed without a reason"));
      return;
    }
    case "error":
      sink.fail(inBandError(event.code, event.message));
      return;
    default:
      return;
  }
}

export const openaiResponsesAdapter: ProviderAdapter<ResponsesChunk> = {
  api: "openai-responses",

  async open(model, context, options) {
    const client = createClient(model, options);
    const params = buildResponsesParams(model, context, options);
    options.onPayload?.(params);
    const stream = await client.responses.create(params, { signal: options.signal });
    return frame(stream, { streamedArgs: new Set<string>(), sawToolCall: false }, options.signal);
  },

  translate(framed, sink) {
    // A stream that ends without response.completed is left to the driver to report.
    if (framed.kind === "chunk") translateEvent(framed.chunk, framed.state, sink);
  },

  classify: classifyOpenAIError,
  endpoint: (model) => endpointOf(model, "/responses"),
};
