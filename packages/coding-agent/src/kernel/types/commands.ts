// The session's one command registry as a front end sees it (`agent.commands`), and what a
// command that ran gives back.
import type { CommandInfo, CommandSpec, PromptOptions } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { CodingAgentError } from "./errors.js";

export type { CommandInfo, PromptOptions } from "@keel/extension-sdk";

/** What a command that ran gave: something to show and/or a prompt to send next. */
export interface CommandOutcome {
  message?: string;
  prompt?: string;
  /** How the prompt runs: pass it on with it (`agent.prompt({ text: prompt, ...promptOptions })`). */
  promptOptions?: PromptOptions;
}

/**
 * The session's one command registry (`agent.commands`), live: built-in commands, the front
 * end's, extensions', skills', MCP prompts and a project's command files. The clash rules are the
 * SDK's (see CommandSpec).
 */
export interface AgentCommands {
  /** Every command now, JSON-safe (name, description, argumentHint, source, interactive). */
  list(): CommandInfo[];
  get(name: string): CommandSpec | undefined;
  /**
   * Runs `/name args`. An unknown name is an `unknown_command` error with the close match, never
   * a prompt; a command's own failure is a `command` error.
   */
  run(line: string, options?: { signal?: AbortSignal }): Promise<Result<CommandOutcome, CodingAgentError>>;
  /** Called after every change (a command added or removed); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /**
   * Registers specs (each with its own source) under the clash rules; a refused one is reported
   * as one diagnostic and the others stay. Returns the function that removes them all again.
   */
  registerCommands(specs: readonly CommandSpec[]): () => void;
}
