// @keel/ext-mcp/client: the MCP client without the extension — connections (stdio, Streamable
// HTTP, SSE), OAuth sessions and the session manager — for hosts that embed it directly.

export { runMcpCli } from "./cli/command.js";
export * from "./connection/index.js";
export { type AuthMode, OAuthSession, type OAuthSessionOptions } from "./connection/oauth/session.js";
export { type ManagerOptions, McpManager, type ServerHandle } from "./manager.js";
