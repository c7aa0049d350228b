// The MCP extension: servers from the user's config and, once the project is trusted, from its
// `.mcp.json` and `.keel/config.json`, each connected in the background with its tools in a
// catalog of its own (announced by name in diff notices), prompts as commands, `/mcp`, and
// `keel mcp …`. Nothing of an untrusted project is read, resolved or started.
import { defineExtension } from "@keel/extension-sdk";
import { ok } from "neverthrow";
import { mcpCli } from "./cli/index.js";
import { runMcpCommand } from "./commands/mcp-command.js";
import { collectServers, readMcpJson, resolveLayers } from "./config/layers.js";
import { McpConfigSchema, McpLayerSchema } from "./config/schema.js";
import { mcpTrustPreview } from "./config/trust-preview.js";
import { McpSession } from "./session.js";

export const MCP_VERSION = "0.1.0";

const SECRET_NAME = /token|secret|key|password|passwd|credential|auth/i;

const NO_SERVERS =
  "No MCP servers are configured. Add one with `keel mcp add <name> -- <command> [args…]` or `keel mcp add <name> <url>`, or put a .mcp.json in a trusted project.";

export const mcpExtension = defineExtension({
  id: "mcp",
  description: "MCP servers' tools, resources and prompts, on demand (stdio, Streamable HTTP, SSE, OAuth).",
  configuration: {
    scope: "layered",
    schema: McpConfigSchema,
    layerSchema: McpLayerSchema,
    default: { servers: {} },
    resolve: (layers) => resolveLayers(layers),
  },
  // Read only when the user is about to trust the project: what it would start.
  trustPreview: (project) => mcpTrustPreview(project.projectRoot),
  lifecycle: {
    activate(context): McpSession {
      const { workspace } = context;
      // Trust before anything of the project is even read.
      const mcpJson = workspace.trusted ? readMcpJson(workspace.projectRoot) : ok(undefined);
      if (mcpJson.isErr()) context.report("warning", mcpJson.error.message);
      const { servers, problems } = collectServers(
        context.config,
        mcpJson.isOk() ? mcpJson.value : undefined,
        {
          env: process.env,
          cwd: workspace.cwd,
          projectRoot: workspace.projectRoot,
          userOrigin: "~/.keel/config.json",
          projectOrigin: ".keel/config.json",
          sessionOrigin: "the editor (this session)",
        },
      );
      for (const problem of problems) context.report("warning", problem.message);
      // Credentials servers get (a `${VAR}` anywhere in their config, header values, secret-looking
      // env values) stay out of the commands the model runs and out of every tool result.
      const raw = JSON.stringify([context.config.servers, mcpJson.isOk() ? mcpJson.value : undefined]);
      for (const m of raw.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) context.protectSecret({ env: m[1]! });
      for (const { spec } of servers) {
        const values =
          spec.transport === "stdio"
            ? Object.entries(spec.env)
                .filter(([name]) => SECRET_NAME.test(name))
                .map(([, value]) => value)
            : Object.values(spec.headers);
        for (const value of values) {
          context.protectSecret({ value });
          const credential = /^(?:bearer|basic|token)\s+(.+)$/i.exec(value)?.[1];
          if (credential) context.protectSecret({ value: credential });
        }
      }
      for (const server of servers) for (const warning of server.warnings) context.report("warning", warning);
      const session = new McpSession(
        context,
        servers.map((s) => s.spec),
        {
          clientVersion: MCP_VERSION,
          ...(context.config.maxResultChars ? { maxResultChars: context.config.maxResultChars } : {}),
        },
      );
      session.start();
      return session;
    },
    deactivate: (runtime) => runtime.instance.close(),
  },
  hooks: {
    sessionStart: (event, runtime) => {
      if (event.reason !== "new") runtime.instance.rootsChanged();
    },
    beforeModelCall: (_event, runtime) => {
      runtime.instance.requestStarting();
    },
    modelResponseStart: (_event, runtime) => {
      runtime.instance.responseStarted();
    },
    sessionShutdown: (_event, runtime) => runtime.instance.close(),
  },
  commands: [
    {
      name: "mcp",
      description: "MCP servers: status, tools, reconnect, login",
      argumentHint: "[reconnect|login|logout|tools] [server]",
      run: async (args, runtime, { signal }) => {
        const manager = await runtime.instance.manager();
        return manager ? runMcpCommand(manager, args, signal) : { message: NO_SERVERS };
      },
    },
  ],
  cli: [mcpCli],
});
