// What createCodingAgent takes: where, which model and session, which extensions, the host's UI
// and commands, and the bounds of a session.
import type { Model, StreamOptions, ThinkingLevel } from "@keel/ai";
import type { CommandSpec, ExtensionDefinition } from "@keel/extension-sdk";
import type { BuiltinTool } from "../../tools/shared.js";
import type { TextFileAccess } from "../../tools/text-files.js";
import type { HostUI } from "./approvals.js";
import type { CodingAgentEvent } from "./events.js";
import type { PermissionModeName } from "./session.js";

export type { TextFileAccess, TextFileError } from "../../tools/text-files.js";

export type SessionChoice =
  | { mode: "new" }
  /**
   * The most recent session of this cwd, or a new one when there is none. `readOnly`: open it
   * without the lock to look at it (prompts are refused; there must be one to open).
   */
  | { mode: "continue"; readOnly?: boolean }
  | { mode: "resume"; session: string; readOnly?: boolean }
  | { mode: "fork"; session: string; entryId?: string }
  /** Nothing journaled. */
  | { mode: "ephemeral" };

/**
 * An extension the kernel loads itself, when a session activates it: nothing of its code is read
 * when config turns it off (`extensions.<id>.enabled: false`). A load that fails (or yields another
 * id) is rolled back alone like a failed activation; a `required` one fails the start.
 */
export interface ExtensionModule {
  /** The id its definition has. */
  id: string;
  load(): Promise<ExtensionDefinition>;
}

export interface CodingAgentOptions {
  cwd: string;
  /** A catalog model, or "provider/id" looked up in the catalog and custom config. */
  model?: Model | string;
  /** ~/.keel by default; KEEL_HOME overrides it. */
  home?: string;
  /** The user's home directory, where Claude Code's ~/.claude lives; default os.homedir(). */
  userHome?: string;
  /**
   * Permission rules for this run only (`--allowedTools`, `--disallowedTools`), source "cli":
   * never written anywhere. A deny here wins over any allow, as every deny does.
   */
  rules?: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] };
  /** Folders outside the project the agent may read and edit for this run (`--add-dir`). */
  additionalDirectories?: readonly string[];
  session?: SessionChoice;
  /** Where session files live; default <home>/sessions/<cwd slug>. */
  sessionDir?: string;
  permissionMode?: PermissionModeName;
  maxTurns?: number;
  appendSystemPrompt?: string;
  /**
   * Settings in Claude Code's shape for this session only (`--settings`): a layer above every
   * settings file, read whether or not the project is trusted (the user gave it). `source` names
   * it in messages (the file, or "--settings").
   */
  settings?: { source: string; value: unknown };
  /** Replaces Keel's opening instructions in the system prompt (`--system-prompt`); tools, context files and the rest stay. */
  systemPrompt?: string;
  /**
   * Extensions composed by the caller (e.g. the official ones), loaded first: definitions, or
   * modules whose code loads only when a session activates them (see ExtensionModule).
   */
  extensions?: (ExtensionDefinition | ExtensionModule)[];
  /** Extension files or folders to load (`-e`). */
  extensionPaths?: string[];
  /** Load ~/.keel/extensions and (trusted projects only) .keel/extensions. Default true. */
  discoverExtensions?: boolean;
  ui?: HostUI;
  /**
   * The front end's own commands (source "host": /quit, /new, /resume …), registered before any
   * extension loads so their names are reserved like the built-in ones. More can come later
   * through `agent.commands.registerCommands`.
   */
  commands?: readonly CommandSpec[];
  /**
   * The host's own layer of extension configuration for this session, by extension id (an
   * editor's MCP servers: `{ mcp: { servers: {…} } }`). Validated like a file's layer, applied
   * over the user's and the project's, never written; read whether or not the project is trusted,
   * since the user chose it in their host.
   */
  extensionConfig?: Record<string, unknown>;
  /**
   * Where Read, Edit and Write get and put text when the host keeps its own view of files (an
   * editor's unsaved buffers, over ACP's fs/read_text_file and fs/write_text_file). The permission
   * gate, the sandbox's path rules and file history stay the kernel's, as for the disk.
   */
  textFiles?: TextFileAccess;
  /**
   * Subscribed before anything happens, so it also hears what creation itself emits
   * (session_start, recovery, startup diagnostics); `subscribe` only hears later events.
   */
  onEvent?: (event: CodingAgentEvent) => void;
  /** Deadline for each extension hook call (activation gets twice this). Default 5000 ms. */
  hookDeadlineMs?: number;
  /** Child agents running at once (config `agents.maxConcurrent`); default 4. */
  maxConcurrentAgents?: number;
  /** Passed to every model call (apiKey, reasoning, fetch for tests, retry policy). */
  streamOptions?: StreamOptions;
  /**
   * How hard the model thinks ("off", "low", "medium", "high", …), mapped onto what the model
   * accepts. Absent: the session's last choice, else `streamOptions.reasoning`, else the
   * model's default (see `CodingAgent.thinking`).
   */
  thinking?: ThinkingLevel;
  /**
   * For tests only; no config or project can set these. `forceParserAllow`: every verdict of the
   * shell parser becomes "allow", so only the OS sandbox stands between a command and its
   * effects. `lookup`: resolves the hosts the sandbox's proxy connects to (a stub, so no test
   * sends a packet off this machine).
   */
  testing?: {
    forceParserAllow?: boolean;
    /**
     * More built-in tools, made for the session's working folder as `createBuiltinTools` makes
     * its own: a test stands one in for a new file in `src/tools/` (its declaration is all the
     * kernel and front ends go by).
     */
    builtinTools?: (cwd: string) => BuiltinTool[];
    lookup?: (host: string) => Promise<{ address: string; family: number }>;
  };
}
