// An ACP prompt (content blocks) as a Keel prompt: text, images, the editor's references to
// files as `@path` mentions (attached the way the terminal attaches them), embedded context inline.
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { PromptInput } from "@keel/coding-agent";

function fileOf(uri: string): string | undefined {
  if (!uri.startsWith("file://")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** A reference the kernel attaches as a mention when it can (a path without spaces), else named. */
function reference(uri: string): string {
  const path = fileOf(uri);
  return path && !/\s/.test(path) ? `@${path}` : (path ?? uri);
}

export function promptInput(blocks: readonly ContentBlock[]): PromptInput {
  const texts: string[] = [];
  const images: NonNullable<PromptInput["images"]> = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        images.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "resource_link":
        texts.push(reference(block.uri));
        break;
      case "resource": {
        const { resource } = block;
        if ("text" in resource) texts.push(`<context uri="${resource.uri}">\n${resource.text}\n</context>`);
        else texts.push(reference(resource.uri));
        break;
      }
      default:
        // Audio is not declared in the prompt capabilities; a client that sends it anyway is told.
        texts.push(`[${block.type} content is not supported by Keel and was left out]`);
    }
  }
  return { text: texts.join("\n"), ...(images.length > 0 ? { images } : {}) };
}
