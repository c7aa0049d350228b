// An MCP tool result as a Keel tool result: text and images as they are, resource links and
// embedded resources as text the model can act on, binary it cannot see kept on disk, the
// structured result checked against the tool's outputSchema, and anything past the size cap
// cut with a notice pointing at the full result on disk.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolResult } from "@keel/extension-sdk";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { err, ok, type Result } from "neverthrow";

type Block = ToolResult["content"][number];
type TextContent = Extract<Block, { type: "text" }>;
type ImageContent = Extract<Block, { type: "image" }>;

export const DEFAULT_MAX_RESULT_CHARS = 40_000;
/** Images past these are kept on disk instead (a runaway server must not fill the context). */
const MAX_IMAGES = 8;
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

export interface McpResultDetails {
  server: string;
  tool: string;
  structuredContent?: unknown;
  /** Set when the result was cut or held binary: where the whole of it is. */
  savedTo?: string;
  truncated?: { shownChars: number; totalChars: number };
}

export interface ResultContext {
  server: string;
  tool: Tool;
  maxChars: number;
  /** Where whole results and binary contents are written (`<data dir>/results`). */
  saveDir: string;
  callId: string;
}

const validator = new AjvJsonSchemaValidator();
const validators = new WeakMap<object, ReturnType<typeof validator.getValidator>>();

/** A structured result against the tool's declared output schema (none declared: anything goes). */
function checkStructured(
  tool: Tool,
  value: unknown,
): Result<void, { type: "schema_mismatch"; message: string }> {
  const schema = tool.outputSchema;
  if (!schema) return ok(undefined);
  let check = validators.get(schema);
  if (!check) {
    check = validator.getValidator(schema as never);
    validators.set(schema, check);
  }
  const result = check(value);
  return result.valid ? ok(undefined) : err({ type: "schema_mismatch", message: result.errorMessage });
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80);
}

const extensionOf = (mimeType: string | undefined) =>
  ({
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "audio/wav": "wav",
    "audio/mpeg": "mp3",
    "application/pdf": "pdf",
    "application/json": "json",
  })[mimeType ?? ""] ?? "bin";

export function toToolResult(result: CallToolResult, context: ResultContext): ToolResult<McpResultDetails> {
  const blocks: (TextContent | ImageContent)[] = [];
  let saved = 0;
  let images = 0;
  const saveBinary = (base64: string, mimeType: string | undefined, label: string): string => {
    mkdirSync(context.saveDir, { recursive: true });
    const file = join(context.saveDir, `${safeName(context.callId)}-${++saved}.${extensionOf(mimeType)}`);
    const bytes = Buffer.from(base64, "base64");
    writeFileSync(file, bytes, { mode: 0o600 });
    return `[${label}${mimeType ? ` (${mimeType})` : ""}, ${bytes.length} bytes, saved to ${file}]`;
  };
  const image = (data: string, mimeType: string, label: string) => {
    if (images < MAX_IMAGES && data.length <= MAX_IMAGE_BASE64 && mimeType.startsWith("image/")) {
      images += 1;
      blocks.push({ type: "image", data, mimeType });
    } else blocks.push({ type: "text", text: saveBinary(data, mimeType, label) });
  };

  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        blocks.push({ type: "text", text: item.text });
        break;
      case "image":
        image(item.data, item.mimeType, "image");
        break;
      case "audio":
        blocks.push({
          type: "text",
          text: saveBinary(item.data, item.mimeType, "audio the model cannot hear"),
        });
        break;
      case "resource_link":
        blocks.push({
          type: "text",
          text: `[resource link] ${item.name}: ${item.uri}${item.mimeType ? ` (${item.mimeType})` : ""}${item.description ? ` — ${item.description}` : ""}`,
        });
        break;
      case "resource": {
        const resource = item.resource;
        if ("text" in resource) {
          blocks.push({
            type: "text",
            text: `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]\n${resource.text}`,
          });
        } else if (resource.mimeType?.startsWith("image/")) {
          image(resource.blob, resource.mimeType, `resource ${resource.uri}`);
        } else {
          blocks.push({
            type: "text",
            text: saveBinary(resource.blob, resource.mimeType, `resource ${resource.uri}`),
          });
        }
        break;
      }
      default:
        blocks.push({
          type: "text",
          text: `[content of type "${(item as { type: string }).type}" not shown]`,
        });
    }
  }

  let isError = result.isError === true;
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const checked = checkStructured(context.tool, structured);
    if (checked.isErr()) {
      isError = true;
      blocks.unshift({
        type: "text",
        text: `MCP server "${context.server}" returned a structured result that does not match the tool's output schema: ${checked.error.message}`,
      });
    }
    // A server should also send the JSON as text; when it did not, the model still gets it.
    if (!blocks.some((b) => b.type === "text" && b.text.trim() !== "")) {
      blocks.push({ type: "text", text: JSON.stringify(structured) });
    }
  } else if (context.tool.outputSchema && !isError) {
    isError = true;
    blocks.unshift({
      type: "text",
      text: `MCP server "${context.server}" declared an output schema for ${context.tool.name} but returned no structured result`,
    });
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "(the tool returned nothing)" });

  const details: McpResultDetails = {
    server: context.server,
    tool: context.tool.name,
    ...(structured !== undefined ? { structuredContent: structured } : {}),
  };
  const capped = capText(blocks, context, details);
  return { content: capped, details, ...(isError ? { isError: true } : {}) };
}

/** Cuts text past `maxChars` (over all text blocks), keeping the whole result on disk. */
function capText(
  blocks: (TextContent | ImageContent)[],
  context: ResultContext,
  details: McpResultDetails,
): (TextContent | ImageContent)[] {
  const total = blocks.reduce((sum, b) => sum + (b.type === "text" ? b.text.length : 0), 0);
  if (total <= context.maxChars) return blocks;
  mkdirSync(context.saveDir, { recursive: true });
  const file = join(context.saveDir, `${safeName(context.callId)}.txt`);
  writeFileSync(
    file,
    blocks.map((b) => (b.type === "text" ? b.text : `[image ${b.mimeType}]`)).join("\n\n"),
    { mode: 0o600 },
  );
  let budget = context.maxChars;
  const out: (TextContent | ImageContent)[] = [];
  for (const block of blocks) {
    if (block.type !== "text") {
      out.push(block);
      continue;
    }
    if (budget <= 0) continue;
    out.push({ type: "text", text: block.text.slice(0, budget) });
    budget -= block.text.length;
  }
  out.push({
    type: "text",
    text: `[Result cut at ${context.maxChars} of ${total} characters. The whole result is in ${file}; read it with Read (offset/limit) or Grep.]`,
  });
  details.savedTo = file;
  details.truncated = { shownChars: context.maxChars, totalChars: total };
  return out;
}

const FAILURE_ADVICE: Record<string, string> = {
  disconnected:
    "The connection was lost while the call ran, so whether it took effect is unknown; check before retrying. Keel is reconnecting.",
  timeout:
    "No answer (nor progress) came in time; the call was cancelled. Whether it took effect is unknown.",
  session_expired: "The server ended the session; Keel started a new one.",
  connect_failed: "The server could not be reached; Keel retries in the background.",
  auth_required: "",
  cancelled: "The call was cancelled.",
};

/** A failed call as the tool error the model gets: what happened and what it means for a retry. */
export function failureResult(
  server: string,
  tool: string,
  failure: { type: string; message: string },
): ToolResult<McpResultDetails & { failure: { type: string; message: string } }> {
  const advice = FAILURE_ADVICE[failure.type];
  const text =
    failure.type === "protocol_error"
      ? `MCP server "${server}" refused ${tool}: ${failure.message}`
      : `MCP server "${server}": ${tool} failed: ${failure.message}.${advice ? ` ${advice}` : ""}`;
  return {
    content: [{ type: "text", text }],
    details: { server, tool, failure: { type: failure.type, message: failure.message } },
    isError: true,
  };
}
