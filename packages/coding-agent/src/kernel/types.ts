// The kernel's public surface: options, the CodingAgent handle, its events and errors.
// Everything an agent UI does goes through this; events are JSON-safe. One module per idea in
// ./types/, gathered here so that "kernel/types.js" stays the one place to import them from.
export type * from "./types/approvals.js";
export type * from "./types/coding-agent.js";
export type * from "./types/commands.js";
export type * from "./types/errors.js";
export type * from "./types/events.js";
export type * from "./types/options.js";
export type * from "./types/runs.js";
export type * from "./types/session.js";
