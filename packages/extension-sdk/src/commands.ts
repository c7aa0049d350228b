// Slash commands: the one spec every command is (built-in, the front end's, an extension's, a
// skill, an MCP prompt, a project's command file), the JSON-safe view front ends list, and the
// form an extension writes (which gets its runtime as well). The clash rules are stated here.
import type { ExtensionRuntime } from "./runtime.js";

/**
 * Who provides a command. `owner` names the extension, skill, MCP server or command file.
 * "builtin" (the kernel) and "host" (the front end: /quit, /new …) are never an extension's.
 */
export type CommandSourceKind = "builtin" | "host" | "extension" | "skill" | "mcp" | "custom";

export interface CommandSource {
  kind: CommandSourceKind;
  owner?: string;
}

/** What a command returns: something to show, a prompt to send, or what went wrong. */
export interface CommandResult {
  /** Shown to the user. */
  message?: string;
  /** Sent to the agent as a prompt. */
  prompt?: string;
  /** How that prompt runs (a command file's front matter); front ends pass it on with the prompt. */
  promptOptions?: PromptOptions;
  /**
   * The command failed (bad arguments, nothing to do it with): shown as an error; print mode
   * exits 2 with it. A command that throws counts as failed too.
   */
  error?: string;
}

/** One prompt's own settings, for that run only. */
export interface PromptOptions {
  /** The model it runs on (`provider/id` or a known alias); an unknown one is a warning, and the session's model runs it. */
  model?: string;
  /** Permission rules allowed until that run ends (a command file's `allowed-tools`). */
  allow?: string[];
}

export interface CommandRunContext {
  /** Aborted when the user cancels the command or the session closes. */
  signal: AbortSignal;
}

/** The earlier name of CommandRunContext. */
export type CommandContext = CommandRunContext;

/**
 * One slash command, `/name args`, as every front end (TUI, print mode, ACP) reads it from the
 * kernel's one registry.
 *
 * Clash rules (the same wherever a command comes from, checked when it is registered):
 * - a name is letters, digits, `_`, `.`, `:` and `-`, starting with a letter or digit, at most 64;
 * - built-in names are the kernel's, and the front end's own ("host") names are reserved before
 *   any extension loads: no one else may take either;
 * - any other name belongs to whoever registered it first; a later one is refused (one diagnostic
 *   naming the owner), never silently replaced. Only the registrant can remove its command.
 */
export interface CommandSpec {
  /** Without the slash. */
  name: string;
  description: string;
  /** Shown in completion, e.g. "<file> [focus]". */
  argumentHint?: string;
  source: CommandSource;
  /** Headless, so every host can run it: what to show and/or a prompt to send. */
  run(args: string, context: CommandRunContext): Promise<CommandResult>;
  /**
   * The name of an interactive presentation a host may offer instead (a picker, a dialog): a host
   * that has a presenter by this name uses it, any other calls `run`.
   */
  interactive?: string;
  /**
   * Only a terminal UI can do what the command is for (it acts on the terminal's own process or
   * swaps the session on its screen): a host without one (ACP) neither offers nor runs it.
   */
  needsTerminal?: boolean;
}

/** A command as front ends list it: the spec without `run`, JSON-safe (ACP, completion, /help). */
export interface CommandInfo {
  name: string;
  description: string;
  argumentHint?: string;
  source: CommandSource;
  interactive?: string;
  needsTerminal?: boolean;
}

/** The JSON-safe view of a spec. */
export function commandInfo(spec: CommandSpec): CommandInfo {
  return {
    name: spec.name,
    description: spec.description,
    ...(spec.argumentHint !== undefined ? { argumentHint: spec.argumentHint } : {}),
    source:
      spec.source.owner !== undefined
        ? { kind: spec.source.kind, owner: spec.source.owner }
        : { kind: spec.source.kind },
    ...(spec.interactive !== undefined ? { interactive: spec.interactive } : {}),
    ...(spec.needsTerminal === true ? { needsTerminal: true } : {}),
  };
}

/** `/name` in a line: what a command name may be (see the clash rules on CommandSpec). */
export const COMMAND_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/**
 * A command as an extension declares it (`commands`, `runtime.commands.add`, `keel.registerCommand`):
 * a CommandSpec whose `run` also gets the extension's runtime, and whose source defaults to
 * `{ kind: "extension", owner: <extension id> }`. An extension that turns something else into
 * commands says what: the skills extension's are `{ kind: "skill", owner: <skill> }`, the MCP
 * extension's `{ kind: "mcp", owner: <server> }`.
 */
export interface ExtensionCommand<Rt = ExtensionRuntime> extends Omit<CommandSpec, "run" | "source"> {
  source?: { kind: "extension" | "skill" | "mcp" | "custom"; owner?: string };
  run(
    args: string,
    runtime: Rt,
    context: CommandRunContext,
  ): CommandResult | void | Promise<CommandResult | void>;
}
