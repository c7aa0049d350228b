// A minimal MCP server over stdio (newline-delimited JSON-RPC, no SDK) that first leaves a marker
// file named by $MARKER: the trust tests see from it whether keel started the server. With
// $RESOURCES=1 it offers one resource, with $PROMPTS=1 one prompt (`review <file>`), and with
// $INIT_DELAY_MS it answers initialize that much later.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

if (process.env.MARKER) writeFileSync(process.env.MARKER, String(process.pid));
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  // With $RESOURCES set, it also offers one text resource (for @server:uri mentions).
  const resources = process.env.RESOURCES === "1";
  const prompts = process.env.PROMPTS === "1";
  const result =
    message.method === "initialize"
      ? {
          protocolVersion: message.params.protocolVersion,
          capabilities: {
            tools: {},
            ...(resources ? { resources: {} } : {}),
            ...(prompts ? { prompts: {} } : {}),
          },
          serverInfo: { name: "marker", version: "1.0.0" },
        }
      : message.method === "prompts/list"
        ? {
            prompts: [
              { name: "review", description: "Review a file", arguments: [{ name: "file", required: true }] },
            ],
          }
        : message.method === "prompts/get"
          ? {
              messages: [
                {
                  role: "user",
                  content: { type: "text", text: `Review ${message.params.arguments?.file} with care.` },
                },
              ],
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
  const answer = () =>
    process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
  const delay = message.method === "initialize" ? Number(process.env.INIT_DELAY_MS ?? 0) : 0;
  if (delay > 0) setTimeout(answer, delay);
  else answer();
});
