// A prompt's attachments: `@path` mentions of files (their content, bounded), folders (a listing)
// and images (image blocks), plus images handed in directly. Read deny rules still apply; a
// model that cannot see images gets the prompt refused rather than silently stripped.
import { readdirSync, statSync } from "node:fs";
import type { ImageContent, TextContent } from "@keel/ai";
import type { Mention, MentionResolution } from "@keel/extension-sdk";
import { readFileBounded } from "@keel/extension-sdk/node";
import { err, ok, type Result } from "neverthrow";
import { splitMention } from "../host/mentions.js";
import { imageMimeTypeForPath, looksBinary, sniffImageMimeType } from "../tools/file-kind.js";
import { READ_LIMITS } from "../tools/read.js";
import { displayPath, formatBytes, resolvePath } from "../tools/shared.js";
import type { PromptInput } from "./types.js";

/** Bytes of one mentioned file sent at most (the rest is left out, and the model told so). */
export const MAX_MENTION_BYTES = 256 * 1024;
/** Entries of a mentioned folder listed at most. */
const MAX_LISTING = 200;

export interface MentionContext {
  cwd: string;
  /** A deny rule's reason when reading `path` is denied. */
  denied(path: string): Promise<string | undefined>;
  supportsImages: boolean;
  modelName: string;
  /** Extensions' `@<prefix>:<ref>` sources (an MCP server's resources). */
  extensions?: {
    answers(prefix: string): boolean;
    resolve(mention: Mention): Promise<MentionResolution | undefined>;
  };
}

export interface ExpandedPrompt {
  content: string | (TextContent | ImageContent)[];
  /** One line each, for the user: what was attached, and what was not (with why). */
  notes: string[];
}

/** The prompt cannot be sent as the user meant it (an image the model cannot see, one too large). */
export interface UnsendablePrompt {
  type: "unsendable";
  message: string;
}

const unsendable = (message: string) => err<never, UnsendablePrompt>({ type: "unsendable", message });

/** `@path` or `@"path with spaces"`, at the start or after whitespace (so mail addresses stay text). */
const MENTION = /(^|\s)@(?:"([^"]+)"|(\S+))/g;

type Mentioned = { kind: "path"; path: string } | { kind: "extension"; mention: Mention };

/** The prompt's mentions in order: an extension's `@prefix:ref` where a source answers, else paths that exist. */
function mentioned(text: string, ctx: MentionContext): Mentioned[] {
  const found: Mentioned[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    const raw = m[2] ?? m[3]!;
    // A mention at the end of a sentence: "look at @a.ts." names a.ts.
    const candidates = m[2] ? [raw] : [raw, raw.replace(/[.,;:!?)\]}'"]+$/, "")];
    const asExtension = splitMention(m[2] ? raw : raw.replace(/[.,;!?]+$/, ""));
    if (asExtension && ctx.extensions?.answers(asExtension.prefix)) {
      const key = `@${asExtension.prefix}:${asExtension.ref}`;
      if (!seen.has(key)) found.push({ kind: "extension", mention: asExtension });
      seen.add(key);
      continue;
    }
    for (const candidate of candidates) {
      if (!candidate) continue;
      const path = resolvePath(ctx.cwd, candidate);
      try {
        statSync(path);
      } catch {
        continue;
      }
      if (!seen.has(path)) found.push({ kind: "path", path });
      seen.add(path);
      break;
    }
  }
  return found;
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
const unescapeAttr = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, "&");

function listing(path: string): string {
  const entries = readdirSync(path, { withFileTypes: true })
    .filter((e) => e.name !== ".git")
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  const shown = entries.slice(0, MAX_LISTING);
  const more = entries.length > shown.length ? `\n… and ${entries.length - shown.length} more` : "";
  return shown.join("\n") + more;
}

const noImages = (ctx: MentionContext, what: string) =>
  `${ctx.modelName} does not accept images, so the prompt was not sent (${what}). Switch to a model that does with /model, or leave the image out.`;

/** What an extension's mention attaches: its text (bounded) in a `<mention>` block, its images; the note says what. */
async function attachExtension(
  mention: Mention,
  ctx: MentionContext,
  blocks: (TextContent | ImageContent)[],
): Promise<Result<string, UnsendablePrompt>> {
  const shown = `@${mention.prefix}:${mention.ref}`;
  const resolved = await ctx.extensions!.resolve(mention);
  if (!resolved) return ok(`not attached: ${shown} (nothing answers @${mention.prefix}: now)`);
  // `resolved` is the SDK's MentionResolution, an extension's answer: its `{ ok }` shape is that contract.
  if (!resolved.ok) return ok(`not attached: ${shown} (${resolved.message})`);
  const images = resolved.content.filter((b): b is ImageContent => b.type === "image");
  if (images.length > 0 && !ctx.supportsImages) return unsendable(noImages(ctx, `${shown} is an image`));
  let text = resolved.content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
  const size = Buffer.byteLength(text);
  const cut = size > MAX_MENTION_BYTES;
  if (cut)
    text = new TextDecoder().decode(Buffer.from(text).subarray(0, MAX_MENTION_BYTES)).replace(/\uFFFD$/, "");
  const title = resolved.title ? ` title="${escapeAttr(resolved.title)}"` : "";
  const note = cut ? ` truncated="first ${MAX_MENTION_BYTES} of ${size} bytes"` : "";
  if (text || images.length === 0)
    blocks.push({
      type: "text",
      text: `<mention ref="${escapeAttr(shown)}"${title}${note}>\n${text}${text.endsWith("\n") ? "" : "\n"}</mention>`,
    });
  blocks.push(...images);
  const what = [
    ...(text ? [`${formatBytes(Math.min(size, MAX_MENTION_BYTES))}${cut ? ", cut" : ""}`] : []),
    ...(images.length > 0 ? [`${images.length} image${images.length > 1 ? "s" : ""}`] : []),
  ].join(", ");
  return ok(`attached ${shown}${resolved.title ? ` (${resolved.title}, ${what})` : ` (${what})`}`);
}

/** The prompt's content with its attachments; an error when it cannot be sent as the user meant it. */
export async function expandPrompt(
  input: PromptInput,
  ctx: MentionContext,
): Promise<Result<ExpandedPrompt, UnsendablePrompt>> {
  const blocks: (TextContent | ImageContent)[] = [];
  const notes: string[] = [];
  for (const item of mentioned(input.text, ctx)) {
    if (item.kind === "extension") {
      const attached = await attachExtension(item.mention, ctx, blocks);
      if (attached.isErr()) return err(attached.error);
      notes.push(attached.value);
      continue;
    }
    const { path } = item;
    const shown = displayPath(ctx.cwd, path);
    const denied = await ctx.denied(path);
    if (denied) {
      notes.push(`not attached: ${shown} (${denied})`);
      continue;
    }
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(path);
      if (info.isDirectory()) {
        blocks.push({
          type: "text",
          text: `<directory path="${escapeAttr(shown)}">\n${listing(path)}\n</directory>`,
        });
        notes.push(`attached the listing of ${shown}/`);
        continue;
      }
      if (!info.isFile()) {
        notes.push(`not attached: ${shown} (not a regular file)`);
        continue;
      }
    } catch (e) {
      notes.push(`not attached: ${shown} (${(e as Error).message})`);
      continue;
    }
    if (imageMimeTypeForPath(path)) {
      if (!ctx.supportsImages) return unsendable(noImages(ctx, `@${shown} is an image`));
      if (info.size > READ_LIMITS.maxImageBytes)
        return unsendable(
          `@${shown} is ${formatBytes(info.size)}, over the ${formatBytes(READ_LIMITS.maxImageBytes)} image limit; the prompt was not sent.`,
        );
      const read = readFileBounded(path, READ_LIMITS.maxImageBytes);
      if (read.isErr()) {
        notes.push(`not attached: ${shown} (${read.error.message})`);
        continue;
      }
      const bytes = read.value.bytes;
      const mimeType = sniffImageMimeType(bytes);
      if (!mimeType) {
        notes.push(`not attached: ${shown} (not a png, jpeg, gif or webp image)`);
        continue;
      }
      blocks.push({ type: "image", data: bytes.toString("base64"), mimeType });
      notes.push(`attached the image ${shown}`);
      continue;
    }
    const read = readFileBounded(path, MAX_MENTION_BYTES);
    if (read.isErr()) {
      notes.push(`not attached: ${shown} (${read.error.message})`);
      continue;
    }
    const { bytes, truncated: cut, size } = read.value;
    if (looksBinary(bytes)) {
      notes.push(`not attached: ${shown} (a binary file)`);
      continue;
    }
    const text = new TextDecoder().decode(bytes);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const note = cut ? ` truncated="first ${bytes.length} of ${size} bytes"` : "";
    blocks.push({
      type: "text",
      text: `<file path="${escapeAttr(shown)}"${note}>\n${text}${text.endsWith("\n") ? "" : "\n"}</file>`,
    });
    notes.push(`attached ${shown} (${lines} lines${cut ? `, the first ${formatBytes(bytes.length)}` : ""})`);
  }
  for (const image of input.images ?? []) {
    if (!ctx.supportsImages) return unsendable(noImages(ctx, "it has an image attached"));
    blocks.push(image);
    notes.push(`attached an image (${image.mimeType})`);
  }
  if (blocks.length === 0) return ok({ content: input.text, notes });
  return ok({ content: [{ type: "text", text: input.text }, ...blocks], notes });
}

/**
 * A user message's own text and what was attached to it (names), for UIs that show the prompt
 * without the attached content, and for putting the prompt back in an editor.
 */
export function promptParts(content: string | readonly (TextContent | ImageContent)[]): {
  text: string;
  attached: string[];
} {
  if (typeof content === "string") return { text: content, attached: [] };
  const attached: string[] = [];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === "image") {
      attached.push("an image");
      continue;
    }
    const tag = /^<(file|directory) path="([^"]*)"|^<mention ref="([^"]*)"/.exec(block.text);
    if (tag && texts.length > 0)
      attached.push(
        tag[3] !== undefined ? unescapeAttr(tag[3]) : tag[1] === "directory" ? `${tag[2]}/` : tag[2]!,
      );
    else texts.push(block.text);
  }
  return { text: texts.join("\n"), attached };
}
