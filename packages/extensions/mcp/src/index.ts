// @keel/ext-mcp: Keel's MCP client. Every server's tools in an on-demand catalog, announced by
// name in diff notices (never in the cached prefix), over stdio, Streamable HTTP or legacy SSE.
export { mcpCli } from "./cli/command.js";
export type { McpConfig, ServerEntry, ServerScope } from "./config/schema.js";
export type { HttpServerSpec, OAuthSettings, SamplingPolicy, ServerSpec, StdioServerSpec } from "./config/servers.js";
export * from "./connection/index.js";
export { OAuthSession, type OAuthSessionOptions } from "./connection/oauth/session.js";
export { mcpExtension } from "./extension.js";
export { McpManager, type ServerHandle } from "./manager.js";

import { mcpExtension } from "./extension.js";

export default mcpExtension;
