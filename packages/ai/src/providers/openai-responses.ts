// OpenAI Responses: the request from a Keel context — stateless (store: false), so reasoning is
// always asked for encrypted and sent back with it, item ids go back only beside the reasoning
// item they belong to, assistant messages keep their phase, and server items go back whole.
import { APIError } from "openai";
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseIncludable,
  ResponseInputContent,
  ResponseInputItem,
  Tool,
} from "openai/resources/responses/responses";
import type { AdapterOptions, ProviderAdapter } from "../driver.js";
import { transformMessages } from "../replay.js";
import { resolveThinking } from "../thinking.js";
import type { AssistantMessage, Context, Model, ReasoningEffort, UserMessage } from "../types.js";
import { baseUrlOf, endpointOf } from "./base-url.js";
import {
  joinToolCallId,
  type ResponsesState,
  responsesState,
  splitToolCallId,
  translateResponsesEvent,
} from "./openai-responses-stream.js";
import {
  classifyOpenAIError,
  createClient,
  dataUrl,
  type Framed,
  frame,
  heldToolImages,
  IMAGE_OMITTED,
  imagesOf,
  promptCacheRetention,
  toolOutputText,
} from "./openai-shared.js";

export { joinToolCallId, splitToolCallId };

/**
 * Deployments that answered 400 to `include: ["reasoning.encrypted_content"]` (a model that does
 * not reason): asked without it from then on, for this process.
 */
const noEncryptedReasoning = new Set<string>();
const deploymentOf = (model: Model) => `${baseUrlOf(model)} ${model.id}`;

/**
 * Whether a request asks for encrypted reasoning: always, except for a catalog model known not
 * to reason (which the API would refuse it for) or a deployment that refused it already. An id
 * the catalog does not know (a new OpenAI model, an Azure deployment) may well reason, and its
 * reasoning can go back under store: false only encrypted.
 */
export function asksEncryptedReasoning(model: Model): boolean {
  if (noEncryptedReasoning.has(deploymentOf(model))) return false;
  return model.reasoning || model.thinking !== undefined || model.source === undefined;
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
  const tools: Tool[] = [...(context.tools ?? []).map(toResponsesTool), ...serverTools(model, context)];
  if (tools.length > 0) params.tools = tools;
  const maxTokens = options.maxTokens ?? model.maxOutput;
  if (maxTokens > 0) params.max_output_tokens = maxTokens;
  if (options.temperature !== undefined && model.samplingParams !== false)
    params.temperature = options.temperature;
  const include: ResponseIncludable[] = [];
  if (asksEncryptedReasoning(model)) include.push("reasoning.encrypted_content");
  if (tools.some((t) => t.type === "web_search")) include.push("web_search_call.action.sources");
  if (include.length > 0) params.include = include;
  if (model.reasoning) {
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

/** OpenAI's web search for a request that offers it, where the model has it (no fetch tool exists). */
function serverTools(model: Model, context: Context): Tool[] {
  if (!model.serverTools?.includes("web_search")) return [];
  const search = context.serverTools?.find((t) => t.name === "web_search");
  if (!search) return [];
  return [
    {
      type: "web_search",
      ...(search.allowedDomains?.length ? { filters: { allowed_domains: search.allowedDomains } } : {}),
    },
  ];
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
function reasoningItem(signature: string | undefined): Record<string, unknown> | undefined {
  if (!signature) return undefined;
  try {
    const item = JSON.parse(signature) as { type?: unknown };
    return item && item.type === "reasoning" ? (item as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function assistantInput(model: Model, message: AssistantMessage, out: ResponseInputItem[]): void {
  // Item ids only mean something to the model that produced them (they pair items with reasoning).
  const sameModel =
    message.provider === model.provider && message.api === model.api && message.model === model.id;
  // Whether the items from here on may go back with their ids: not after a reasoning item that
  // cannot be sent (an id without its reasoning item is refused), and only to the same model.
  let ids = sameModel;
  let text: { parts: string[]; phase: string | undefined; id: string | undefined } | undefined;
  const flushText = () => {
    if (!text) return;
    const content = text.parts.join("\n\n");
    const phase = text.phase as "commentary" | "final_answer" | undefined;
    if (ids && text.id)
      out.push({
        type: "message",
        role: "assistant",
        id: text.id,
        status: "completed",
        content: [{ type: "output_text", text: content, annotations: [] }],
        ...(phase ? { phase } : {}),
      } as ResponseInputItem);
    else out.push({ type: "message", role: "assistant", content, ...(phase ? { phase } : {}) });
    text = undefined;
  };
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text === "") continue;
      // One message per item and phase: commentary and the final answer stay apart.
      const id = block.signature;
      if (text && (text.phase !== block.phase || text.id !== id)) flushText();
      text ??= { parts: [], phase: block.phase, id };
      text.parts.push(block.text);
    } else if (block.type === "thinking") {
      flushText();
      // After replay only this model's own thinking is left. Under store: false an item goes back
      // only with its encrypted content; one without it would be looked up by id and not found.
      const item = reasoningItem(block.signature);
      if (!item) continue;
      if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
        out.push(item as unknown as ResponseInputItem);
        ids = sameModel;
      } else ids = false;
    } else if (block.type === "serverTool") {
      flushText();
      out.push(block.raw as unknown as ResponseInputItem);
    } else if (block.type === "toolCall") {
      flushText();
      const { callId, itemId } = splitToolCallId(block.id);
      out.push({
        type: "function_call",
        call_id: callId,
        name: block.name,
        arguments: JSON.stringify(block.arguments),
        ...(ids && itemId ? { id: itemId } : {}),
      });
    }
  }
  flushText();
}

function convertInput(model: Model, context: Context): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  const toolImages = heldToolImages<ResponseInputContent>((note, images) =>
    out.push({ role: "user", content: [{ type: "input_text", text: note }, ...images] }),
  );
  for (const message of transformMessages(context.messages, model)) {
    if (message.role !== "toolResult") toolImages.flush();
    if (message.role === "user") out.push(userInput(model, message.content));
    else if (message.role === "assistant") assistantInput(model, message, out);
    else {
      out.push({
        type: "function_call_output",
        call_id: splitToolCallId(message.toolCallId).callId,
        output: toolOutputText(message.content),
      });
      for (const image of imagesOf(message.content)) toolImages.add(imagePart(model, image));
    }
  }
  toolImages.flush();
  return out;
}

type ResponsesChunk = Framed<
  import("openai/resources/responses/responses").ResponseStreamEvent,
  ResponsesState
>;

/** A 400 about `include`: this deployment does not reason, so it has no encrypted reasoning to give. */
function refusesEncryptedReasoning(error: unknown): boolean {
  return (
    error instanceof APIError && error.status === 400 && (error as { param?: unknown }).param === "include"
  );
}

export const openaiResponsesAdapter: ProviderAdapter<ResponsesChunk> = {
  api: "openai-responses",

  async open(model, context, options) {
    const client = createClient(model, options);
    const send = async () => {
      const params = buildResponsesParams(model, context, options);
      options.onPayload?.(params);
      return client.responses.create(params, { signal: options.signal });
    };
    let stream: Awaited<ReturnType<typeof send>>;
    try {
      stream = await send();
    } catch (error) {
      if (!refusesEncryptedReasoning(error) || !asksEncryptedReasoning(model)) throw error;
      noEncryptedReasoning.add(deploymentOf(model));
      stream = await send();
    }
    return frame(stream, responsesState(), options.signal);
  },

  translate(framed, sink) {
    // A stream that ends without response.completed is left to the driver to report.
    if (framed.kind === "chunk") translateResponsesEvent(framed.chunk, framed.state, sink);
  },

  classify: classifyOpenAIError,
  endpoint: (model) => endpointOf(model, "/responses"),
};
