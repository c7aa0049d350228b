// OpenAI Responses (POST /v1/responses): named events response.created … response.completed,
// each with a running sequence_number; reasoning summaries, output text and function-call
// arguments stream as deltas on their output items.
import type { PlannedReply } from "../reply.js";
import { splitText, sseEvent } from "../sse.js";
import { type Dialect, type ErrorSpec, FIXED_UNIX_SECONDS, pad } from "./dialect.js";
import { openaiErrorBody, openaiOverflow } from "./openai-errors.js";

type Item = Record<string, unknown>;
type Event = { type: string } & Record<string, unknown>;

function responseId(reply: PlannedReply): string {
  return `resp_keel${pad(reply.index)}`;
}

function usage(reply: PlannedReply) {
  const input = reply.usage.input + reply.usage.cacheRead + reply.usage.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: reply.usage.cacheRead },
    output_tokens: reply.usage.output,
    output_tokens_details: { reasoning_tokens: reply.usage.reasoning },
    total_tokens: input + reply.usage.output,
  };
}

function field<T>(body: Record<string, unknown>, key: string, fallback: T): unknown {
  return body[key] ?? fallback;
}

function responseObject(reply: PlannedReply, status: string, output: Item[], extra: Item = {}): Item {
  const reasoning = reply.body.reasoning;
  const effort =
    typeof reasoning === "object" && reasoning !== null && "effort" in reasoning ? reasoning.effort : null;
  return {
    id: responseId(reply),
    object: "response",
    created_at: FIXED_UNIX_SECONDS,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: field(reply.body, "instructions", null),
    max_output_tokens: field(reply.body, "max_output_tokens", null),
    model: reply.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: field(reply.body, "previous_response_id", null),
    reasoning: { effort, summary: null },
    store: field(reply.body, "store", true),
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: field(reply.body, "tools", []),
    top_p: 1,
    truncation: "disabled",
    usage: null,
    user: null,
    metadata: {},
    ...extra,
  };
}

function finalStatus(reply: PlannedReply): Item {
  if (reply.stopReason === "length")
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (reply.stopReason === "refusal")
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed" };
}

/** Whether the reply ends incomplete (response.incomplete instead of response.completed). */
const incomplete = (reply: PlannedReply) => reply.stopReason === "length" || reply.stopReason === "refusal";

/**
 * One output item's events: added in its in-progress form, its own events, done in its finished
 * form (the frame every item kind shares).
 */
function outputItem(
  output_index: number,
  added: Item,
  done: Item,
  own: Event[],
): { events: Event[]; done: Item } {
  return {
    done,
    events: [
      { type: "response.output_item.added", output_index, item: added },
      ...own,
      { type: "response.output_item.done", output_index, item: done },
    ],
  };
}

/** Each output item as a list of events (without sequence numbers) and its finished form. */
function items(reply: PlannedReply): { events: Event[]; done: Item }[] {
  const out: { events: Event[]; done: Item }[] = [];
  const { chunkSize } = reply;
  const itemStatus = incomplete(reply) ? "incomplete" : "completed";
  // Web searches run first, each a web_search_call item (Responses has no web fetch tool).
  reply.serverTools.forEach((tool, i) => {
    if (tool.name !== "web_search") return;
    const output_index = out.length;
    const id = `ws_keel${pad(reply.index)}_${i}`;
    const action = {
      type: "search",
      query: tool.query,
      sources: tool.results.map((r) => ({ type: "url", url: r.url })),
    };
    const done = { id, type: "web_search_call", status: tool.error ? "failed" : "completed", action };
    const at = { item_id: id, output_index };
    out.push(
      outputItem(output_index, { id, type: "web_search_call", status: "in_progress" }, done, [
        { type: "response.web_search_call.in_progress", ...at },
        { type: "response.web_search_call.searching", ...at },
        { type: "response.web_search_call.completed", ...at },
      ]),
    );
  });
  if (reply.thinking !== undefined) {
    const output_index = out.length;
    const id = `rs_keel${pad(reply.index)}`;
    const text = reply.thinking;
    const secret =
      reply.thinkingSignature === undefined ? {} : { encrypted_content: reply.thinkingSignature };
    const part = { type: "summary_text", text };
    const done = { id, type: "reasoning", summary: [part], ...secret };
    const at = { item_id: id, output_index, summary_index: 0 };
    out.push(
      outputItem(output_index, { id, type: "reasoning", summary: [], ...secret }, done, [
        { type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } },
        ...splitText(text, chunkSize).map((delta) => ({
          type: "response.reasoning_summary_text.delta",
          ...at,
          delta,
        })),
        { type: "response.reasoning_summary_text.done", ...at, text },
        { type: "response.reasoning_summary_part.done", ...at, part },
      ]),
    );
  }
  if (reply.text !== undefined) {
    const output_index = out.length;
    const id = `msg_keel${pad(reply.index)}`;
    const text = reply.text;
    // Each citation annotates the first place its cited words appear (or the whole text).
    const annotations = reply.citations.map((c) => {
      const at = text.indexOf(c.citedText);
      const start_index = at === -1 ? 0 : at;
      const end_index = at === -1 ? text.length : at + c.citedText.length;
      return { type: "url_citation", start_index, end_index, url: c.url, title: c.title ?? c.url };
    });
    const part = { type: "output_text", annotations, logprobs: [], text };
    const item = { id, type: "message", role: "assistant" };
    const done = { ...item, status: itemStatus, content: [part] };
    const at = { item_id: id, output_index, content_index: 0 };
    out.push(
      outputItem(output_index, { ...item, status: "in_progress", content: [] }, done, [
        { type: "response.content_part.added", ...at, part: { ...part, annotations: [], text: "" } },
        ...splitText(text, chunkSize).map((delta) => ({
          type: "response.output_text.delta",
          ...at,
          delta,
          logprobs: [],
        })),
        ...annotations.map((annotation, annotation_index) => ({
          type: "response.output_text.annotation.added",
          ...at,
          annotation_index,
          annotation,
        })),
        { type: "response.output_text.done", ...at, text, logprobs: [] },
        { type: "response.content_part.done", ...at, part },
      ]),
    );
  }
  reply.toolCalls.forEach((call, i) => {
    const output_index = out.length;
    const id = `fc_keel${pad(reply.index)}_${i}`;
    const item = {
      id,
      type: "function_call",
      call_id: call.id ?? `call_keel${pad(reply.index)}_${i}`,
      name: call.name,
    };
    const done = { ...item, status: itemStatus, arguments: call.arguments };
    const at = { item_id: id, output_index };
    out.push(
      outputItem(output_index, { ...item, status: "in_progress", arguments: "" }, done, [
        ...splitText(call.arguments, chunkSize).map((delta) => ({
          type: "response.function_call_arguments.delta",
          ...at,
          delta,
        })),
        { type: "response.function_call_arguments.done", ...at, name: call.name, arguments: call.arguments },
      ]),
    );
  });
  return out;
}

function json(reply: PlannedReply): Item {
  return responseObject(
    reply,
    "completed",
    items(reply).map((entry) => entry.done),
    { ...finalStatus(reply), usage: usage(reply) },
  );
}

function frame(event: Event, sequence_number: number): string {
  const { type, ...rest } = event;
  return sseEvent(type, { type, sequence_number, ...rest });
}

function stream(reply: PlannedReply): string[] {
  const built = items(reply);
  const final = json(reply);
  const events: Event[] = [
    { type: "response.created", response: responseObject(reply, "in_progress", []) },
    { type: "response.in_progress", response: responseObject(reply, "in_progress", []) },
    ...built.flatMap((entry) => entry.events),
    { type: incomplete(reply) ? "response.incomplete" : "response.completed", response: final },
  ];
  return events.map(frame);
}

export const openaiResponses: Dialect = {
  api: "openai-responses",
  path: "/v1/responses",
  requestIdHeader: "x-request-id",
  stream,
  json,
  errorBody: (error: ErrorSpec) => openaiErrorBody(error),
  overflow: (turn) => openaiOverflow(turn, "input"),
  streamError: (reply, message, sent) =>
    frame(
      {
        type: "response.failed",
        response: responseObject(reply, "failed", [], {
          error: { code: "server_error", message },
          usage: usage(reply),
        }),
      },
      sent,
    ),
  malformed: () =>
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n',
  isTextDelta: (frame) => frame.startsWith("event: response.output_text.delta\n"),
};
