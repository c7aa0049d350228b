// Paginated listing of a server's tools and prompts, and the change test that decides whether
// a fresh list is news (only then does the catalog invalidate and the model hear of it).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ListPromptsResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** A server listing more than this is cut (and says so in the debug log): a runaway cursor loop. */
export const MAX_LISTED = 2000;

interface ListOptions {
  timeout: number;
  signal?: AbortSignal;
}

/** Pages until the server gives no cursor, or MAX_LISTED items are in (more are cut). */
async function everyPage<T>(
  page: (params: { cursor?: string }) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor ? { cursor } : {});
    items.push(...next.items);
    cursor = next.nextCursor;
  } while (cursor && items.length < MAX_LISTED);
  return items.slice(0, MAX_LISTED);
}

/**
 * Every page of tools/list. Called through `request` rather than `client.listTools`, which keeps
 * output validators for the last page only; Keel validates structured results itself.
 */
export function listAllTools(client: Client, options: ListOptions): Promise<Tool[]> {
  return everyPage(async (params) => {
    const page = await client.request({ method: "tools/list", params }, ListToolsResultSchema, options);
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

export function listAllPrompts(client: Client, options: ListOptions): Promise<Prompt[]> {
  return everyPage(async (params) => {
    const page = await client.request({ method: "prompts/list", params }, ListPromptsResultSchema, options);
    return { items: page.prompts, nextCursor: page.nextCursor };
  });
}

/** Same content in the same order (what the model and the user could see of it). */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
