// A minimal MCP server over stdio (newline-delimited JSON-RPC, no SDK) that first leaves a marker
// file named by $MARKER: the trust tests see from it whether keel started the server. With
// $RESOURCES=1 it offers one resource.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

if (process.env.MARKER) writeFileSync(process.env.MARKER, String(process.pid));
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  // With $RESOURCES set, it also offers one text resource (for @server:uri mentions).
  const resources = process.env.RESOURCES === "1";
  const result =
    message.method === "initialize"
      ? {
          protocolVersion: message.params.protocolVersion,
          capabilities: resources ? { tools: {}, resources: {} } : { tools: {} },
          serverInfo: { name: "marker", version: "1.0.0" },
        }
      : message.method === "tools/list"
        ? { tools: [{ name: "hello", description: "Say hello", inputSchema: { type: "object" } }] }
        : message.method === "resources/list"
          ? { resources: [{ uri: "notes://team/runbook", name: "runbook", mimeType: "text/plain" }] }
          : message.method === "resources/read"
            ? {
                contents: [
                  { uri: message.params.uri, mimeType: "text/plain", text: "Restart with make bounce." },
                ],
              }
            : {};
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
});
