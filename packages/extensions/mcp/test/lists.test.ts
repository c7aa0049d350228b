// Paginated tools/list and prompts/list against a real SDK server (in memory): every page in
// order with the server's cursor, and a server whose cursor never ends cut at MAX_LISTED.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListPromptsRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { listAllPrompts, listAllTools, MAX_LISTED } from "../src/connection/lists.js";

/** A server answering `pages` pages of `perPage` tools and prompts each (`Infinity`: it never stops). */
async function pagingServer(pages: number, perPage: number) {
  const cursors: (string | undefined)[] = [];
  const server = new Server(
    { name: "pages", version: "1.0.0" },
    { capabilities: { tools: {}, prompts: {} } },
  );
  const page = (cursor: string | undefined) => {
    cursors.push(cursor);
    const n = cursor ? Number(cursor) : 0;
    const names = Array.from({ length: perPage }, (_, i) => `item_${n * perPage + i}`);
    return { names, ...(n + 1 < pages ? { nextCursor: String(n + 1) } : {}) };
  };
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const { names, ...rest } = page(request.params?.cursor);
    return { tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })), ...rest };
  });
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const { names, ...rest } = page(request.params?.cursor);
    return { prompts: names.map((name) => ({ name })), ...rest };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return { client, cursors, close: () => client.close() };
}

const options = { timeout: 5_000 };

describe("listing every page", () => {
  it("follows the server's cursor through every page of tools, in order", async () => {
    const s = await pagingServer(3, 2);
    const tools = await listAllTools(s.client, options);
    expect(tools.map((t) => t.name)).toEqual(["item_0", "item_1", "item_2", "item_3", "item_4", "item_5"]);
    expect(s.cursors).toEqual([undefined, "1", "2"]);
    await s.close();
  });

  it("does the same for prompts", async () => {
    const s = await pagingServer(2, 3);
    const prompts = await listAllPrompts(s.client, options);
    expect(prompts.map((p) => p.name)).toEqual(["item_0", "item_1", "item_2", "item_3", "item_4", "item_5"]);
    expect(s.cursors).toEqual([undefined, "1"]);
    await s.close();
  });

  it("stops a cursor that never ends at MAX_LISTED", async () => {
    const s = await pagingServer(Number.POSITIVE_INFINITY, 300);
    const tools = await listAllTools(s.client, options);
    expect(tools).toHaveLength(MAX_LISTED);
    expect(tools.at(-1)!.name).toBe(`item_${MAX_LISTED - 1}`);
    expect(s.cursors).toHaveLength(Math.ceil(MAX_LISTED / 300));
    await s.close();
  });
});
