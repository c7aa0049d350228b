// @keel/ext-mcp: Keel's MCP client. Every server's tools in an on-demand catalog, announced by
// name in diff notices (never in the cached prefix), over stdio, Streamable HTTP or legacy SSE.
// This entry stays light (no MCP SDK): the client itself is `@keel/ext-mcp/client`.
export { mcpCli } from "./cli/index.js";
export type { McpConfig, ServerEntry, ServerScope } from "./config/schema.js";
export type {
  HttpServerSpec,
  OAuthSettings,
  SamplingPolicy,
  ServerSpec,
  StdioServerSpec,
} from "./config/servers.js";
export { MCP_VERSION, mcpExtension } from "./extension.js";

import { mcpExtension } from "./extension.js";

export default mcpExtension;
