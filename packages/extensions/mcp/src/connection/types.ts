// The connection module's vocabulary: states, statuses and events of a connection, what it
// needs from OAuth, and how it is built and called.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Implementation, Progress, Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Result } from "neverthrow";
import type { BackoffOptions } from "./backoff.js";
import type { ClientFeatureHandlers } from "./client.js";
import type { McpFailure } from "./errors.js";
import type { TaskState } from "./tasks.js";

export type TransportKind = "stdio" | "http" | "sse";

export type ConnectionState =
  | "idle"
  | "connecting"
  | "connected"
  | "reconnecting"
  | "needs-auth"
  | "failed"
  | "disabled"
  | "closed";

export interface ConnectionStatus {
  server: string;
  state: ConnectionState;
  transport?: TransportKind;
  sessionId?: string;
  serverInfo?: Implementation;
  /** Tools the model may use (after the allow / deny lists). */
  tools: number;
  /** What went wrong last; cleared by the next successful connect. */
  lastError?: McpFailure;
  /** Reconnect attempts in the current streak. */
  attempt: number;
}

export type ConnectionEvent =
  | { type: "status"; status: ConnectionStatus }
  | { type: "tools"; tools: Tool[] }
  /** The server said its tools changed; the new list is being read (see `listsSettled`). */
  | { type: "tools_changing" }
  | { type: "prompts"; prompts: Prompt[] }
  | { type: "resources" }
  | { type: "elicitation_complete"; elicitationId: string }
  /** Something the user should hear once (a failed refresh that kept the old list). */
  | { type: "warning"; message: string };

/** OAuth for one HTTP server (see ../oauth). */
export interface AuthSession {
  provider: OAuthClientProvider;
  fetch: FetchLike;
  /**
   * After the SDK asked to send the user to the authorization page: the code once they finished
   * there, or why there is none (nobody to ask — run `keel mcp login`; timed out; refused).
   */
  takeAuthorization(signal?: AbortSignal): Promise<Result<string, McpFailure>>;
}

export interface ConnectionOptions {
  clientInfo: { name: string; version: string };
  /** The server's log: stderr, MCP log messages and connection events. */
  logFile: string;
  handlers: ClientFeatureHandlers;
  auth?: AuthSession;
  backoff?: Partial<BackoffOptions>;
  /** How long a stdio server gets after each shutdown step (stdin closed, SIGTERM, SIGKILL); default 300 ms. */
  shutdownGraceMs?: number;
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** Run it as a task (the tool requires it, and the server takes task-augmented calls). */
  task?: boolean;
  /** A task's status changed (with `task`). */
  onTaskStatus?: (task: TaskState) => void;
}
