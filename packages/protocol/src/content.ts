// Content blocks: what a message is made of (text, thinking, images, tool calls, server-side tool
// blocks), and the wire protocols that produced them. Plain JSON, so it crosses processes unchanged.
import { type Static, Type } from "@sinclair/typebox";
import { literals, strict } from "./shape.js";

const Str = Type.String();
const Opt = Type.Optional;
const Json = Type.Record(Str, Type.Unknown());

/** The wire protocols Keel speaks. OpenAI-compatible servers use "openai-completions". */
export const ApiSchema = literals(["anthropic-messages", "openai-completions", "openai-responses"]);
export type Api = Static<typeof ApiSchema>;

/** A source the model cited for a span of its text (a web search result, a fetched page). */
export const CitationSchema = strict(
  {
    url: Opt(Str),
    title: Opt(Str),
    /** The words cited, where the provider says. */
    citedText: Opt(Str),
    /** The provider's own citation object, sent back unchanged to the same provider and API. */
    raw: Opt(Json),
  },
  "A source the provider cited for the text (raw: its own citation object).",
);
export type Citation = Static<typeof CitationSchema>;

export const TextContentSchema = strict(
  {
    type: Type.Literal("text"),
    text: Str,
    /** Sources the provider cited for this text. */
    citations: Opt(Type.Array(CitationSchema)),
    /**
     * OpenAI Responses: whether the model meant this text as intermediate commentary or its final
     * answer. It goes back with the text (models from gpt-5.3-codex on degrade without it).
     */
    phase: Opt(literals(["commentary", "final_answer"])),
    /** Opaque to all but the provider and API that made it: an OpenAI Responses message item id. */
    signature: Opt(Str),
  },
  "Text, with the sources it cites; phase (OpenAI Responses): commentary or the final answer.",
);
export type TextContent = Static<typeof TextContentSchema>;

export const ThinkingContentSchema = strict(
  {
    type: Type.Literal("thinking"),
    thinking: Str,
    /**
     * Opaque proof of the thinking for the provider that produced it: an Anthropic signature,
     * or a serialized OpenAI Responses reasoning item (with its encrypted content).
     */
    signature: Opt(Str),
    /** Anthropic redacted thinking: `thinking` is empty and `signature` holds the data. */
    redacted: Opt(Type.Boolean()),
    /** Which provider+api made the signature, so replay on another provider can drop it. */
    source: Opt(strict({ provider: Str, api: ApiSchema }, "Who signed the thinking.")),
  },
  "The model's thinking (its summary, for models that summarise).",
);
export type ThinkingContent = Static<typeof ThinkingContentSchema>;

export const ImageContentSchema = strict(
  {
    type: Type.Literal("image"),
    /** base64 without the data: prefix */
    data: Str,
    mimeType: Str,
  },
  "An image, base64 without the data: prefix.",
);
export type ImageContent = Static<typeof ImageContentSchema>;

export const ToolCallSchema = strict(
  {
    type: Type.Literal("toolCall"),
    id: Str,
    name: Str,
    arguments: Json,
    /**
     * Set when the model's arguments were not one JSON object: says what was wrong and how the
     * text began. `arguments` is then `{}`; the call must not run (the agent loop answers it with
     * an error result so the model can send it again), and its siblings are unaffected.
     */
    argumentsError: Opt(Str),
  },
  "A tool call; argumentsError says why its arguments were not one JSON object (it did not run).",
);
export type ToolCall = Static<typeof ToolCallSchema>;

/** Server-side tools a provider runs itself within a reply, which Keel can offer a request. */
export const ServerToolNameSchema = literals(["web_search", "web_fetch"]);
export type ServerToolName = Static<typeof ServerToolNameSchema>;

/**
 * Something the provider ran on its side within the reply — a web search or fetch, code
 * execution, an MCP call, a compaction — or its result, as one provider block (Anthropic) or
 * output item (OpenAI Responses). It is kept whole: the same provider and API get `raw` back
 * unchanged; another provider gets a line of text saying what it was.
 */
export const ServerToolContentSchema = strict(
  {
    type: Type.Literal("serverTool"),
    /** The tool: web_search, web_fetch, code_execution, mcp, … (a result block carries its call's tool). */
    name: Str,
    /** A call's id, or the id of the call a result answers ("" when the block has none). */
    id: Str,
    /** A call's input (the query, the URL), as far as it streamed. */
    input: Opt(Json),
    /** Pages a web search or fetch returned. */
    sources: Opt(Type.Array(strict({ url: Str, title: Opt(Str) }, "A page it returned."))),
    /** The provider's error code, when the tool failed (max_uses_exceeded, url_not_accessible…). */
    error: Opt(Str),
    /** The provider's block or item, exactly as it came. */
    raw: Json,
    source: strict({ provider: Str, api: ApiSchema }, "The provider that ran it."),
  },
  "Something the provider ran on its side (a web search or fetch, code execution) or its result; raw is the provider's block.",
);
export type ServerToolContent = Static<typeof ServerToolContentSchema>;
