// A minimal MCP server over stdio (newline-delimited JSON-RPC, no SDK) that first leaves a marker
// file named by $MARKER: the trust tests see from it whether keel started the server.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

if (process.env.MARKER) writeFileSync(process.env.MARKER, String(process.pid));
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const result =
    message.method === "initialize"
      ? {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "marker", version: "1.0.0" },
        }
      : message.method === "tools/list"
        ? { tools: [{ name: "hello", description: "Say hello", inputSchema: { type: "object" } }] }
        : {};
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
});
