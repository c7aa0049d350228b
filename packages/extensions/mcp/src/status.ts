// The status-line item and the /mcp listing, from connection statuses: what is connected, what
// needs a login, what is down and why.
import type { ConnectionStatus } from "./connection/index.js";

/** "mcp 2/3 · github: login" — undefined with no servers, so nothing is shown. */
export function statusLine(statuses: ConnectionStatus[]): string | undefined {
  const live = statuses.filter((s) => s.state !== "disabled");
  if (live.length === 0) return undefined;
  const connected = live.filter((s) => s.state === "connected").length;
  const issues = live.flatMap((s) =>
    s.state === "needs-auth"
      ? [`${s.server}: login`]
      : s.state === "failed"
        ? [`${s.server}: down`]
        : s.state === "reconnecting"
          ? [`${s.server}: reconnecting`]
          : [],
  );
  const starting = live.some((s) => s.state === "idle" || s.state === "connecting");
  return [`mcp ${connected}/${live.length}${starting ? " …" : ""}`, ...issues.slice(0, 2)].join(" · ");
}

export interface ServerRow {
  status: ConnectionStatus;
  scope: string;
  transport: string;
  target: string;
  log: string;
}

/** The /mcp listing: one block per server. */
export function statusReport(rows: ServerRow[]): string {
  if (rows.length === 0)
    return "No MCP servers are configured. Add one with `keel mcp add <name> -- <command> [args…]` or `keel mcp add <name> <url>`.";
  const lines: string[] = [];
  for (const { status, scope, transport, target, log } of rows) {
    const state = status.state === "connected" ? `connected, ${status.tools} tools` : status.state;
    lines.push(`${status.server} (${scope}, ${transport}) — ${state}`);
    lines.push(`  ${target}`);
    if (status.serverInfo) lines.push(`  server: ${status.serverInfo.name} ${status.serverInfo.version}`);
    if (status.lastError) lines.push(`  last error: ${status.lastError.type}: ${status.lastError.message}`);
    lines.push(`  log: ${log}`);
  }
  lines.push(
    "",
    "/mcp reconnect <server> · /mcp login <server> · /mcp logout <server> · /mcp tools <server>",
  );
  return lines.join("\n");
}
