// @keel/ext-mcp: Keel's MCP client. Every server's tools in an on-demand catalog, announced by
// name in diff notices (never in the cached prefix), over stdio, Streamable HTTP or legacy SSE.
export * from "./connection/index.js";
