// The request shapes the providers document, as checks on the bytes Keel sent: what a follow-up
// request must look like for the API to take it. Each rule names where it is documented; the
// vendors' SDK types (generated from their OpenAPI specs) say the same field by field.
//
// Anthropic Messages: https://platform.claude.com/docs/en/api/messages (request body),
//   .../agents-and-tools/tool-use/implement-tool-use (tool_result placement),
//   .../build-with-claude/extended-thinking (thinking blocks go back with their signature),
//   .../agents-and-tools/tool-use/web-search-tool and server-tools (server blocks go back as they came).
// OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create (input items),
//   .../docs/guides/reasoning#keeping-reasoning-items-in-context (store: false needs
//   include: ["reasoning.encrypted_content"] and reasoning items sent back with it; a function
//   call sent with its item id needs the reasoning item that came with it),
//   EasyInputMessage.phase ("for gpt-5.3-codex and beyond … preserve and resend phase on all
//   assistant messages").
// OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create (messages;
//   an assistant message holds text content and/or tool_calls; each tool message answers one call).

type Json = Record<string, unknown>;

export interface ShapeFacts {
  /** Response item ids the provider sent and what came before them (Responses: rs_ → fc_ pairing). */
  reasoningBefore: Map<string, string>;
  /** Whether the model showed it reasons (a reasoning item in any response). */
  reasons: boolean;
  /** Assistant message texts the provider labelled with a phase (Responses). */
  phases: Map<string, string>;
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const SERVER_ID = /^srvtoolu_[a-zA-Z0-9_]+$/;

const ANTHROPIC_USER = new Set(["text", "image", "document", "tool_result", "search_result"]);
const ANTHROPIC_ASSISTANT = new Set([
  "text",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "server_tool_use",
  "mcp_tool_use",
  "mcp_tool_result",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "advisor_tool_result",
  "container_upload",
  "compaction",
  "fallback",
]);

const str = (v: unknown) => typeof v === "string";

export function checkAnthropic(raw: string): string[] {
  const problems: string[] = [];
  const body = JSON.parse(raw) as Json;
  if (!str(body.model)) problems.push("model must be a string");
  if (typeof body.max_tokens !== "number" || (body.max_tokens as number) < 1)
    problems.push("max_tokens must be ≥ 1");
  const messages = body.messages as { role: string; content: Json[] | string }[];
  if (!Array.isArray(messages) || messages.length === 0)
    return [...problems, "messages must be a non-empty array"];
  if (messages[0]!.role !== "user") problems.push("the first message must be the user's");
  let markers = 0;
  const count = (v: unknown) => {
    if (v && typeof v === "object" && "cache_control" in (v as Json)) markers++;
  };
  for (const t of (body.tools as Json[] | undefined) ?? []) count(t);
  for (const s of Array.isArray(body.system) ? (body.system as Json[]) : []) count(s);
  // Server tool calls so far: a result may come in a later assistant message than its call
  // (the API runs a server tool after the client answered the message's own tool calls).
  const serverIds = new Set<string>();
  messages.forEach((m, i) => {
    const where = `messages[${i}] (${m.role})`;
    if (m.role !== "user" && m.role !== "assistant")
      problems.push(`${where}: role must be user or assistant`);
    if (typeof m.content === "string") return;
    if (!Array.isArray(m.content) || m.content.length === 0) {
      problems.push(`${where}: content must be a string or a non-empty array of blocks`);
      return;
    }
    const allowed = m.role === "user" ? ANTHROPIC_USER : ANTHROPIC_ASSISTANT;
    m.content.forEach((b, j) => {
      count(b);
      const at = `${where}.content[${j}] (${String(b.type)})`;
      if (!allowed.has(String(b.type)))
        problems.push(`${at}: not a block type the API takes in a ${m.role} message`);
      if (b.type === "text" && (!str(b.text) || b.text === ""))
        problems.push(`${at}: text must be a non-empty string`);
      if (b.type === "thinking" && (!str(b.signature) || b.signature === ""))
        problems.push(`${at}: a thinking block goes back with its signature`);
      if (b.type === "redacted_thinking" && (!str(b.data) || b.data === ""))
        problems.push(`${at}: redacted_thinking needs its data`);
      if (b.type === "tool_use") {
        if (!str(b.id) || !TOOL_ID.test(b.id as string))
          problems.push(`${at}: id ${JSON.stringify(b.id)} must match ${TOOL_ID}`);
        if (!str(b.name) || !TOOL_NAME.test(b.name as string))
          problems.push(`${at}: name ${JSON.stringify(b.name)} must match ${TOOL_NAME}`);
        if (!b.input || typeof b.input !== "object" || Array.isArray(b.input))
          problems.push(`${at}: input must be an object`);
      }
      if (b.type === "server_tool_use" || b.type === "mcp_tool_use") {
        if (!str(b.id) || (b.type === "server_tool_use" && !SERVER_ID.test(b.id as string)))
          problems.push(`${at}: id ${JSON.stringify(b.id)} is not a server tool id`);
        if (!str(b.name) || b.name === "") problems.push(`${at}: a server tool call needs its name`);
        if (!b.input || typeof b.input !== "object") problems.push(`${at}: input must be an object`);
        serverIds.add(b.id as string);
      }
      if (String(b.type).endsWith("_tool_result") && m.role === "assistant") {
        if (!str(b.tool_use_id) || !serverIds.has(b.tool_use_id as string))
          problems.push(
            `${at}: tool_use_id ${JSON.stringify(b.tool_use_id)} answers no server tool call before it`,
          );
      }
    });
    // Every client tool call is answered first thing in the next user message.
    if (m.role === "assistant") {
      const calls = m.content.filter((b) => b.type === "tool_use").map((b) => b.id as string);
      if (calls.length === 0) return;
      const next = messages[i + 1];
      if (!next) return; // the request's last message: the model's own prefill, nothing to answer yet
      const blocks = typeof next.content === "string" ? [] : next.content;
      const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id as string);
      for (const id of calls)
        if (!results.includes(id))
          problems.push(`${where}: tool_use ${id} has no tool_result in the next message`);
      const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
      if (firstOther !== -1 && firstOther < results.length)
        problems.push(`messages[${i + 1}]: tool_result blocks must come first`);
    }
    if (m.role === "user" && Array.isArray(m.content)) {
      const prev = messages[i - 1];
      const asked = new Set(
        prev?.role === "assistant" && Array.isArray(prev.content)
          ? prev.content.filter((b) => b.type === "tool_use").map((b) => b.id as string)
          : [],
      );
      for (const b of m.content)
        if (b.type === "tool_result" && !asked.has(b.tool_use_id as string))
          problems.push(
            `${where}: tool_result ${String(b.tool_use_id)} answers no tool_use of the message before`,
          );
    }
  });
  if (markers > 4) problems.push(`${markers} cache_control markers: the API takes at most 4`);
  return problems;
}

const RESPONSES_ITEMS = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "web_search_call",
  "file_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_call",
  "mcp_list_tools",
  "compaction",
  "tool_search_call",
  "tool_search_output",
  "program",
  "program_output",
  "item_reference",
]);

export function checkResponses(raw: string, facts: ShapeFacts): string[] {
  const problems: string[] = [];
  const body = JSON.parse(raw) as Json;
  if (!str(body.model)) problems.push("model must be a string");
  const input = body.input as Json[];
  if (!Array.isArray(input)) return [...problems, "input must be an array of items"];
  const stateless = body.store === false;
  const include = (body.include as string[] | undefined) ?? [];
  if (stateless && facts.reasons && !include.includes("reasoning.encrypted_content"))
    problems.push('store: false with a reasoning model needs include: ["reasoning.encrypted_content"]');
  const sentReasoning = new Set<string>();
  const calls = new Set<string>();
  input.forEach((item, i) => {
    const type = item.type ?? (item.role ? "message" : undefined);
    const at = `input[${i}] (${String(type)})`;
    if (!RESPONSES_ITEMS.has(String(type))) problems.push(`${at}: not an input item type`);
    if (type === "message") {
      if (!["user", "assistant", "system", "developer"].includes(String(item.role)))
        problems.push(`${at}: bad role`);
      const content = item.content;
      if (!str(content) && !Array.isArray(content)) problems.push(`${at}: content must be a string or parts`);
      if (str(content) && (content as string).includes("[object Object]"))
        problems.push(`${at}: content holds [object Object]`);
      if (item.phase !== undefined && item.role !== "assistant")
        problems.push(`${at}: phase is for assistant messages only`);
      if (item.phase !== undefined && item.phase !== "commentary" && item.phase !== "final_answer")
        problems.push(`${at}: phase must be commentary or final_answer`);
      if (item.role === "assistant") {
        const text = str(content)
          ? (content as string)
          : ((content as Json[]) ?? []).map((p) => String(p.text ?? "")).join("");
        const phase = facts.phases.get(text);
        if (phase !== undefined && item.phase !== phase)
          problems.push(`${at}: the model labelled this message ${phase}; it goes back with phase ${phase}`);
      }
    }
    if (type === "reasoning") {
      if (!str(item.id)) problems.push(`${at}: a reasoning item needs its id`);
      if (!Array.isArray(item.summary)) problems.push(`${at}: summary must be an array`);
      if (stateless && !str(item.encrypted_content))
        problems.push(
          `${at}: under store: false a reasoning item must carry its encrypted_content (else "Item with id ${String(item.id)} not found")`,
        );
      sentReasoning.add(String(item.id));
    }
    if (type === "function_call") {
      if (!str(item.call_id) || item.call_id === "") problems.push(`${at}: call_id is required`);
      if (!str(item.name) || item.name === "") problems.push(`${at}: name is required`);
      if (!str(item.arguments)) problems.push(`${at}: arguments must be a JSON string`);
      else {
        try {
          JSON.parse(item.arguments as string);
        } catch {
          problems.push(`${at}: arguments must be JSON`);
        }
      }
      if (str(item.id)) {
        const needs = facts.reasoningBefore.get(item.id as string);
        if (needs && !sentReasoning.has(needs))
          problems.push(`${at}: sent with id ${String(item.id)} without its reasoning item ${needs}`);
      }
      calls.add(String(item.call_id));
    }
    if (type === "function_call_output" && !calls.has(String(item.call_id)))
      problems.push(`${at}: call_id ${String(item.call_id)} answers no function_call before it`);
  });
  for (const id of calls)
    if (!input.some((item) => item.type === "function_call_output" && item.call_id === id))
      problems.push(`function_call ${id} has no function_call_output`);
  return problems;
}

export function checkChat(raw: string): string[] {
  const problems: string[] = [];
  const body = JSON.parse(raw) as Json;
  const messages = body.messages as Json[];
  if (!Array.isArray(messages) || messages.length === 0) return ["messages must be a non-empty array"];
  let open: string[] = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}] (${String(m.role)})`;
    if (!["system", "developer", "user", "assistant", "tool"].includes(String(m.role)))
      problems.push(`${at}: bad role`);
    const content = m.content;
    if (str(content) && (content as string).includes("[object Object]"))
      problems.push(`${at}: content holds [object Object]`);
    if (Array.isArray(content))
      for (const part of content as Json[]) {
        if (m.role === "assistant" && part.type !== "text" && part.type !== "refusal")
          problems.push(`${at}: an assistant content part is text or refusal`);
        if (part.type === "text" && !str(part.text)) problems.push(`${at}: a text part needs text`);
      }
    if (m.role === "tool") {
      if (!open.includes(String(m.tool_call_id)))
        problems.push(`${at}: tool_call_id ${String(m.tool_call_id)} answers no open call`);
      open = open.filter((id) => id !== m.tool_call_id);
      return;
    }
    if (open.length > 0) problems.push(`${at}: tool calls ${open.join(", ")} were not answered before it`);
    open = [];
    if (m.role === "assistant") {
      const calls = (m.tool_calls as Json[] | undefined) ?? [];
      if ((content === null || content === undefined || content === "") && calls.length === 0)
        problems.push(`${at}: an assistant message needs content or tool_calls`);
      for (const c of calls) {
        const fn = (c.function ?? {}) as Json;
        if (!str(c.id) || c.id === "") problems.push(`${at}: a tool call needs its id`);
        if (c.type !== "function") problems.push(`${at}: tool call type must be function`);
        if (!str(fn.name) || fn.name === "") problems.push(`${at}: a tool call needs its name`);
        try {
          JSON.parse(String(fn.arguments));
        } catch {
          problems.push(`${at}: arguments must be a JSON string`);
        }
        open.push(String(c.id));
      }
    }
  });
  return problems;
}
