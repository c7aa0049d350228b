// An MCP server over stdio with N tools of realistic size (a two-sentence description and a
// five-property schema, ~1 KB each as a resident tool), for bench/mcp/run.mjs. The SDK is taken
// from @keel/ext-mcp's dependencies. Usage: node tools-server.mjs [count]
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const from = createRequire(join(root, "packages/extensions/mcp/package.json"));
const load = (id) => import(pathToFileURL(from.resolve(id)).href);
const { Server } = await load("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = await load("@modelcontextprotocol/sdk/types.js");

const VERBS = ["get", "list", "create", "update", "delete", "search", "merge", "close", "assign", "label"];
const NOUNS = [
  "issue",
  "pull_request",
  "comment",
  "branch",
  "release",
  "workflow",
  "label",
  "milestone",
  "review",
  "commit",
];
const count = Number(process.argv[2] ?? 100);
const tools = Array.from({ length: count }, (_, i) => {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  return {
    name: `${verb}_${noun}${i >= 100 ? `_${i}` : ""}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun.replace("_", " ")} in a repository. Returns the ${noun.replace("_", " ")} as JSON with its id, state, author, timestamps and links, or an error naming what was missing.`,
    inputSchema: {
      type: "object",
      properties: {
        owner: { type: "string", description: "The account that owns the repository" },
        repo: { type: "string", description: "The repository name, without the owner" },
        id: { type: "integer", description: `The ${noun.replace("_", " ")} number` },
        state: { type: "string", enum: ["open", "closed", "all"], description: "Which ones to include" },
        per_page: { type: "integer", minimum: 1, maximum: 100, description: "Results per page (default 30)" },
      },
      required: ["owner", "repo"],
    },
  };
});

const server = new Server({ name: "bench-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: `${request.params.name} ran` }],
}));
await server.connect(new StdioServerTransport());
