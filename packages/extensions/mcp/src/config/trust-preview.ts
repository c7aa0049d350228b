// What trusting a project would start that the kernel's own preview does not list: the servers a
// project's `.keel/config.json` declares for this extension, each with the command it runs or the
// URL it connects to, and the env and headers it is given, as written (nothing expanded, resolved,
// spawned or contacted). The kernel lists `.mcp.json`'s servers itself (trust records them).
import { join } from "node:path";
import { serversIn } from "./files.js";

type Json = Record<string, unknown>;

function pairs(value: unknown, sep: string): string[] {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value as Json).map(
    ([k, v]) => `${k}${sep}${typeof v === "string" ? v : JSON.stringify(v)}`,
  );
}

function describe(name: string, raw: unknown, origin: string): string {
  const spec = (typeof raw === "object" && raw !== null ? raw : {}) as Json;
  const env = pairs(spec.env, "=");
  const headers = pairs(spec.headers, ": ");
  const extra = [
    ...(env.length > 0 ? [`with env ${env.join(", ")}`] : []),
    ...(headers.length > 0 ? [`sending headers ${headers.join(", ")}`] : []),
  ];
  if (typeof spec.url === "string")
    return [`server ${name} (${origin}): connects to ${spec.url}`, ...extra].join(" ");
  const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
  const command = typeof spec.command === "string" ? [spec.command, ...args].join(" ") : "(no command)";
  return [`server ${name} (${origin}): runs ${command}`, ...extra].join(" ");
}

export function mcpTrustPreview(projectRoot: string): string[] {
  const lines: string[] = [];
  const keel = serversIn({ path: join(projectRoot, ".keel", "config.json"), scope: "user" });
  if (keel.isErr()) lines.push(`(.keel/config.json could not be read: ${keel.error.message})`);
  else
    for (const [name, raw] of Object.entries(keel.value))
      lines.push(describe(name, raw, ".keel/config.json"));
  return lines;
}
