// One line (or a few) describing a server for `keel mcp list|get`, with secrets kept out: env
// and header values are never printed, only their names.
import type { ServerSpec } from "../config/servers.js";

export function describeEntry(spec: ServerSpec, detailed = false): string {
  if (spec.transport === "stdio") {
    const line = `stdio: ${[spec.command, ...spec.args].join(" ")}`;
    if (!detailed) return line;
    const env = Object.keys(spec.env);
    return [
      line,
      ...(env.length ? [`  env: ${env.map((k) => `${k}=…`).join(" ")}`] : []),
      `  cwd: ${spec.cwd}`,
    ].join("\n");
  }
  const line = `${spec.transport}: ${spec.url}`;
  if (!detailed) return line;
  const headers = Object.keys(spec.headers);
  return [line, ...(headers.length ? [`  headers: ${headers.map((h) => `${h}: …`).join(", ")}`] : [])].join(
    "\n",
  );
}
