// What trusting a project would start: the servers its `.mcp.json` and `.keel/config.json`
// declare, each with the command it runs or the URL it connects to, as written (nothing expanded,
// resolved, spawned or contacted) — one line each, for the kernel's /trust preview.
import { join } from "node:path";
import { serversIn } from "./files.js";
import { readMcpJson } from "./layers.js";

type Json = Record<string, unknown>;

function describe(name: string, raw: unknown, origin: string): string {
  const spec = (typeof raw === "object" && raw !== null ? raw : {}) as Json;
  if (typeof spec.url === "string") return `server ${name} (${origin}): connects to ${spec.url}`;
  const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
  const command = typeof spec.command === "string" ? [spec.command, ...args].join(" ") : "(no command)";
  const env = typeof spec.env === "object" && spec.env !== null ? Object.keys(spec.env as Json) : [];
  return `server ${name} (${origin}): runs ${command}${env.length > 0 ? ` with ${env.join(", ")} set` : ""}`;
}

export function mcpTrustPreview(projectRoot: string): string[] {
  const lines: string[] = [];
  const mcpJson = readMcpJson(projectRoot);
  if (mcpJson.isErr()) lines.push(`(.mcp.json could not be read: ${mcpJson.error.message})`);
  else
    for (const [name, raw] of Object.entries(mcpJson.value?.servers ?? {}))
      lines.push(describe(name, raw, ".mcp.json"));
  const keel = serversIn({ path: join(projectRoot, ".keel", "config.json"), scope: "user" });
  if (keel.isErr()) lines.push(`(.keel/config.json could not be read: ${keel.error.message})`);
  else
    for (const [name, raw] of Object.entries(keel.value))
      lines.push(describe(name, raw, ".keel/config.json"));
  return lines;
}
