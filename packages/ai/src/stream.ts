// Public entry points: stream() and complete(), dispatching on the model's wire protocol.
import type { AssistantMessageEventStream } from "./builder.js";
import { type ProviderAdapter, runProvider } from "./driver.js";
import type { Api, AssistantMessage, Context, Model, StreamOptions } from "./types.js";

const builtinAdapters: Record<Api, () => Promise<ProviderAdapter>> = {
  "anthropic-messages": () =>
    import("./providers/anthropic.js").then((m) => m.anthropicAdapter as ProviderAdapter),
  "openai-completions": () =>
    import("./providers/openai-completions.js").then((m) => m.openaiCompletionsAdapter as ProviderAdapter),
  "openai-responses": () =>
    import("./providers/openai-responses.js").then((m) => m.openaiResponsesAdapter as ProviderAdapter),
};

/** Streams one assistant message. Never throws: failures end the stream with an `error` event. */
export function stream(model: Model, context: Context, options?: StreamOptions): AssistantMessageEventStream {
  return runProvider(builtinAdapters[model.api], model, context, options);
}

/** Like stream(), resolved to the final message (stopReason tells how it ended). */
export function complete(model: Model, context: Context, options?: StreamOptions): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}

export type StreamFunction = typeof stream;
