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

/**
 * Every page of tools/list. Called through `request` rather than `client.listTools`, which keeps
 * output validators for the last page only; Keel validates structured results itself.
 */
export async function listAllTools(client: Client, options: ListOptions): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: "tools/list", params: cursor ? { cursor } : {} },
      ListToolsResultSchema,
      options,
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length < MAX_LISTED);
  return tools.slice(0, MAX_LISTED);
}

export async function listAllPrompts(client: Client, options: ListOptions): Promise<Prompt[]> {
  const prompts: Prompt[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: "prompts/list", params: cursor ? { cursor } : {} },
      ListPromptsResultSchema,
      options,
    );
    prompts.push(...page.prompts);
    cursor = page.nextCursor;
  } while (cursor && prompts.length < MAX_LISTED);
  return prompts.slice(0, MAX_LISTED);
}

/** Same content in the same order (what the model and the user could see of it). */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
