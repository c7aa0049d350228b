// The connection module's public surface: everything above it talks to MCP servers through
// these names only, so moving to the SDK's next major is a change inside this folder.
export type { BackoffOptions } from "./backoff.js";
export type { ClientFeatureHandlers } from "./client.js";
export {
  type AuthSession,
  type CallOptions,
  type ConnectionEvent,
  type ConnectionOptions,
  type ConnectionState,
  type ConnectionStatus,
  McpConnection,
  type TransportKind,
} from "./connection.js";
export { classify, type FailureType, type McpFailure } from "./errors.js";
