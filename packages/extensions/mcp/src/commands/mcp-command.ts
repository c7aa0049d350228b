// `/mcp`: the servers with their status, tool counts, last error and log; `/mcp reconnect`,
// `/mcp login`, `/mcp logout` and `/mcp tools` for one server.
import type { CommandResult } from "@keel/extension-sdk";
import { accessOf } from "../catalog/side-effects.js";
import type { McpManager, ServerHandle } from "../manager.js";
import { statusReport } from "../status.js";

function targetOf(server: ServerHandle): string {
  const spec = server.spec;
  return spec.transport === "stdio" ? [spec.command, ...spec.args].join(" ") : spec.url;
}

export function listing(manager: McpManager): string {
  return statusReport(
    manager.servers.map((server) => ({
      status: server.connection.status(),
      scope: server.spec.scope,
      transport: server.spec.transport,
      target: targetOf(server),
      log: server.connection.log.file,
    })),
  );
}

export async function runMcpCommand(
  manager: McpManager,
  args: string,
  signal: AbortSignal,
): Promise<CommandResult> {
  const [action, name] = args.trim().split(/\s+/);
  if (!action) return { message: listing(manager) };
  const server = name ? manager.get(name) : undefined;
  if (!server)
    return {
      message: name
        ? `No MCP server "${name}". Servers: ${manager.servers.map((s) => s.spec.name).join(", ") || "none"}.`
        : `Usage: /mcp ${action} <server>`,
    };
  switch (action) {
    case "reconnect": {
      const result = await server.connection.reconnect();
      return {
        message: result.isOk()
          ? `Reconnected ${server.spec.name} (${server.connection.status().tools} tools).`
          : `Could not reconnect ${server.spec.name}: ${result.error.message}`,
      };
    }
    case "login": {
      const login = await manager.login(server, signal);
      return {
        message: login.isErr()
          ? `Login for ${server.spec.name} did not complete: ${login.error.message}`
          : `Logged in to ${server.spec.name}; ${server.connection.status().tools} tools.`,
      };
    }
    case "logout": {
      if (!server.auth) return { message: `${server.spec.name} does not use OAuth.` };
      server.auth.forget();
      await server.connection.reconnect();
      return { message: `Forgot the tokens of ${server.spec.name}.` };
    }
    case "tools": {
      const tools = server.connection.tools();
      const names = server.namer.assign(tools.map((t) => t.name));
      const lines = tools.map(
        (t) =>
          `${names.get(t.name)}${accessOf(t, server.spec.readOnlyHints) === "write" ? "" : "  (read-only)"}${t.description ? ` — ${t.description.split("\n")[0]}` : ""}`,
      );
      return { message: lines.length > 0 ? lines.join("\n") : `${server.spec.name} offers no tools (now).` };
    }
    default:
      return { message: "Usage: /mcp [reconnect|login|logout|tools] <server>" };
  }
}
