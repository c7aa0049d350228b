// @keel/agent public API.

export { Agent, type AgentOptions, type PromptOptions } from "./agent.js";
export type * from "./config.js";
export type * from "./events.js";
export { type AgentLoopRun, agentLoop, type MessageQueues, runAgentLoop } from "./loop.js";
export * from "./types.js";
