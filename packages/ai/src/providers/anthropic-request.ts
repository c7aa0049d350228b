// Builds the Anthropic Messages request body from a Keel context: history conversion,
// tools, extended thinking and prompt-cache breakpoints.
import type Anthropic from "@anthropic-ai/sdk";
import { transformMessages } from "../replay.js";
import { resolveThinking, thinkingSpecOf } from "../thinking.js";
import type {
  AssistantMessage,
  Context,
  ImageContent,
  Model,
  ReasoningEffort,
  StreamOptions,
  TextContent,
  ThinkingSpec,
  ToolResultMessage,
} from "../types.js";

type Params = Anthropic.MessageCreateParamsStreaming;
type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type CacheControl = Anthropic.CacheControlEphemeral;
type ToolResultContent = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

/** Thinking budgets per effort (manual extended thinking); at least 1024 and less than max_tokens. */
const THINKING_BUDGET: Partial<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 4096,
  medium: 10_240,
  high: 32_000,
};
const MIN_THINKING_BUDGET = 1024;

/** A request that cannot be built as asked; the adapter reports it as a config error. */
export class AnthropicRequestError extends Error {
  override readonly name = "AnthropicRequestError";
}

type RequestOptions = Pick<
  StreamOptions,
  "maxTokens" | "temperature" | "reasoning" | "cacheRetention" | "headers"
>;

/** The SDK's default API version (2026-10-21) rejects sampling parameters; 2023-06-01 still takes them. */
const TEMPERATURE_API_VERSION = "2023-06-01";

export function buildParams(model: Model, context: Context, options: RequestOptions): Params {
  const maxTokens = options.maxTokens ?? model.maxOutput;
  const params: Params & { temperature?: number } = {
    model: model.id,
    max_tokens: maxTokens,
    messages: convertMessages(context, model),
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
    addCacheBreakpoints(
      params,
      options.cacheRetention === "long" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" },
    );
  }
  return params;
}

/** The beta that lets a request ask for stale preserved-thinking blocks to be dropped. */
export const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

type ThinkingParams = Pick<Params, "thinking" | "output_config">;

/**
 * Adaptive thinking as Keel always asks for it: summarized, so thinking text (and, on Claude
 * Sonnet 5.5, the notes written between tool calls) comes back instead of empty blocks; and,
 * on models with preserved thinking, with stale blocks dropped instead of failing the request:
 * Keel's one-request reminders and compaction change what came before older blocks.
 */
function adaptive(spec: ThinkingSpec): Params["thinking"] {
  const config = {
    type: "adaptive" as const,
    display: "summarized" as const,
    ...(spec.prefixBound ? { block_binding: { prefix_mismatch_behavior: "drop_block" } } : {}),
  };
  return config as Params["thinking"];
}

function thinkingParams(
  model: Model,
  requested: StreamOptions["reasoning"],
  maxTokens: number,
): ThinkingParams {
  const spec = thinkingSpecOf(model);
  if (!spec) return {};
  const { choice } = resolveThinking(model, requested);
  if (choice.kind === "default") {
    // Saying nothing runs the model's default; spelling it out also asks for the thinking text.
    return spec.mode === "adaptive" && spec.defaultOn ? { thinking: adaptive(spec) } : {};
  }
  if (choice.kind === "off") {
    if (choice.via === "disabled") return { thinking: { type: "disabled" } };
    if (choice.via === "between_tools") return { thinking: { type: "between_tools" } };
    return {};
  }
  if (spec.mode === "adaptive") {
    return {
      thinking: adaptive(spec),
      ...(choice.effort
        ? { output_config: { effort: choice.effort as "low" | "medium" | "high" | "xhigh" | "max" } }
        : {}),
    };
  }
  const budget = Math.min(
    THINKING_BUDGET[choice.effort ?? "medium"] ?? THINKING_BUDGET.medium!,
    maxTokens - 1,
  );
  if (budget < MIN_THINKING_BUDGET) {
    throw new AnthropicRequestError(
      `maxTokens ${maxTokens} leaves no room for extended thinking (it needs more than ${MIN_THINKING_BUDGET}); ` +
        "raise maxTokens or drop the reasoning option.",
    );
  }
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

/** Headers a request needs for what its body asks (the preserved-thinking binding beta). */
export function requestHeaders(
  params: Params,
  model: Model,
  options: RequestOptions,
): Record<string, string> {
  const binding = (params.thinking as { block_binding?: unknown } | undefined)?.block_binding;
  if (!binding) return {};
  const headers = { ...model.headers, ...options.headers };
  const existing = Object.entries(headers).find(([name]) => name.toLowerCase() === "anthropic-beta")?.[1];
  const betas = existing ? existing.split(",").map((b) => b.trim()) : [];
  if (!betas.includes(THINKING_BINDING_BETA)) betas.push(THINKING_BINDING_BETA);
  return { "anthropic-beta": betas.join(",") };
}

/** The anthropic-version a request is pinned to through model or call headers, if any. */
function apiVersion(model: Model, options: RequestOptions): string | undefined {
  const headers = { ...model.headers, ...options.headers };
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === "anthropic-version") return value;
  return undefined;
}

/**
 * Marks the three growing prefixes (system, tools, history) so each request reads what the
 * previous one wrote. Three markers, within the API's limit of four.
 */
function addCacheBreakpoints(params: Params, cacheControl: CacheControl): void {
  const system = Array.isArray(params.system) ? params.system.at(-1) : undefined;
  if (system) system.cache_control = cacheControl;
  const lastTool = params.tools?.at(-1);
  if (lastTool && "input_schema" in lastTool) lastTool.cache_control = cacheControl;
  const lastMessage = params.messages.at(-1);
  if (!lastMessage) return;
  if (typeof lastMessage.content === "string") {
    lastMessage.content = [{ type: "text", text: lastMessage.content }];
  }
  // Thinking blocks cannot carry a breakpoint; the last other block covers them too.
  for (let i = lastMessage.content.length - 1; i >= 0; i--) {
    const block = lastMessage.content[i];
    if (!block || block.type === "thinking" || block.type === "redacted_thinking") continue;
    block.cache_control = cacheControl;
    return;
  }
}

function convertMessages(context: Context, model: Model): MessageParam[] {
  const out: MessageParam[] = [];
  let pendingResults: Anthropic.ToolResultBlockParam[] = [];
  const flushResults = () => {
    if (pendingResults.length === 0) return;
    // All results of one tool batch go back in a single user turn, as the API expects.
    out.push({ role: "user", content: pendingResults });
    pendingResults = [];
  };

  for (const message of transformMessages(context.messages, model)) {
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

function convertAssistantContent(message: AssistantMessage): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text !== "") out.push({ type: "text", text: block.text });
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
