// Command-line parsing: argv → a checked CliCommand (run, help or version) or a usage error.
// Strict: unknown flags, bad values and contradictory combinations are errors, never ignored.
import { parseArgs } from "node:util";
import { splitToolRules } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const INPUT_FORMATS = ["text", "stream-json"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** `--thinking`: the kernel's levels (the bin loads no kernel, so the list is repeated here; a test compares). */
export const THINKING_FLAG_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ThinkingFlag = (typeof THINKING_FLAG_LEVELS)[number];

/** Which session a run works in, as the user asked for it. */
export type SessionFlag =
  | { kind: "new" }
  | { kind: "continue"; fork: boolean }
  /** `id` undefined: interactive mode shows a picker. */
  | { kind: "resume"; id: string | undefined; fork: boolean }
  | { kind: "ephemeral" }
  /** `--read-only`: open the session named (or the latest, `id` undefined) only to show it. */
  | { kind: "inspect"; id: string | undefined };

export interface CliFlags {
  print: boolean;
  /** The prompt given on the command line (positional words joined by spaces). */
  prompt: string | undefined;
  outputFormat: OutputFormat;
  /** stream-json: user messages as NDJSON on stdin, one run each (print mode, stream-json output). */
  inputFormat: InputFormat;
  /** stream-json output: text and thinking deltas as lines of their own. */
  includePartialMessages: boolean;
  model: string | undefined;
  provider: string | undefined;
  session: SessionFlag;
  permissionMode: PermissionMode | undefined;
  /** How hard the model thinks; undefined: the session's last choice or the model's default. */
  thinking: ThinkingFlag | undefined;
  maxTurns: number | undefined;
  appendSystemPrompt: string | undefined;
  /** `--system-prompt`: replaces Keel's opening instructions. */
  systemPrompt: string | undefined;
  /** `--allowedTools` / `--disallowedTools` (Claude Code's flags): permission rules for this run. */
  allowedTools: string[];
  disallowedTools: string[];
  /** `--add-dir`: folders outside the project the agent may read and edit for this run. */
  addDirs: string[];
  /** `--settings <file or JSON>`: Claude Code-shaped settings for this run, above every file. */
  settings: string | undefined;
  /** `--mcp-config <file or JSON>…`: MCP servers for this run (Claude Code's `{"mcpServers": …}`). */
  mcpConfigs: string[];
  /** `--strict-mcp-config`: only the servers of --mcp-config. */
  strictMcpConfig: boolean;
  extensions: string[];
  noExtensions: boolean;
  cwd: string | undefined;
  /** Show the debug log (extensions' and the kernel's) live on stderr. */
  debug: boolean;
  /** Print mode: how long the end of a run waits for background agents still running (ms). */
  waitChildrenMs: number;
}

/** `--wait-children` when not given: background agents get five minutes to report. */
export const DEFAULT_WAIT_CHILDREN_MS = 300_000;

/**
 * Words that, as the first argument, name a subcommand rather than start a prompt: Keel's own and
 * those the official extensions contribute (their `cli` field).
 */
export const SUBCOMMANDS = [
  "install",
  "uninstall",
  "update",
  "list",
  "sessions",
  "config",
  "mcp",
  "connector",
  "acp",
] as const;
/** `keel models [--provider p] [--refresh] [--json]`: what the catalog and the endpoints offer. */
export interface ModelsFlags {
  provider: string | undefined;
  /** Ask the models endpoints even when the cached answer is fresh. */
  refresh: boolean;
  json: boolean;
  cwd: string | undefined;
}

export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; flags: CliFlags }
  | { kind: "subcommand"; name: string; argv: string[] }
  | { kind: "models"; flags: ModelsFlags };

export interface UsageError {
  type: "usage";
  message: string;
}

const usage = (message: string): Result<never, UsageError> => err({ type: "usage", message });

const OPTIONS = {
  print: { type: "boolean", short: "p" },
  "output-format": { type: "string" },
  "input-format": { type: "string" },
  "include-partial-messages": { type: "boolean" },
  model: { type: "string" },
  provider: { type: "string" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  fork: { type: "boolean" },
  "read-only": { type: "boolean" },
  "no-session": { type: "boolean" },
  "permission-mode": { type: "string" },
  thinking: { type: "string" },
  "max-turns": { type: "string" },
  "append-system-prompt": { type: "string" },
  "system-prompt": { type: "string" },
  allowedTools: { type: "string", multiple: true },
  "allowed-tools": { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  "disallowed-tools": { type: "string", multiple: true },
  "add-dir": { type: "string", multiple: true },
  settings: { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
  extension: { type: "string", short: "e", multiple: true },
  "no-extensions": { type: "boolean" },
  cwd: { type: "string" },
  debug: { type: "boolean" },
  "wait-children": { type: "string" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

/** A word after `--mcp-config` that is another config (a JSON object, or a `.json` path), not the prompt. */
const isMcpConfig = (word: string) => word.trimStart().startsWith("{") || /^[^\s]+\.json$/.test(word);

/**
 * `-r` / `--resume` take an optional id, which parseArgs cannot express: a bare one (last
 * argument, or followed by another flag) becomes `--resume=` so the empty id means "pick".
 * `--mcp-config a.json b.json` (Claude Code's several values) becomes one flag per value.
 */
function normaliseArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if ((arg === "-r" || arg === "--resume") && (next === undefined || next.startsWith("-"))) {
      out.push("--resume=");
    } else if (arg === "--mcp-config" && next !== undefined) {
      out.push(arg, next);
      i++;
      while (argv[i + 1] !== undefined && isMcpConfig(argv[i + 1]!)) out.push(arg, argv[++i]!);
    } else out.push(arg);
  }
  return out;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): Result<T, UsageError> {
  return (allowed as readonly string[]).includes(value)
    ? ok(value as T)
    : usage(`--${name} must be one of ${allowed.join(", ")} (got "${value}").`);
}

function parseMaxTurns(value: string): Result<number, UsageError> {
  const n = Number(value);
  return /^\d+$/.test(value.trim()) && Number.isSafeInteger(n) && n > 0
    ? ok(n)
    : usage(`--max-turns must be a positive whole number (got "${value}").`);
}

function parseWaitChildren(value: string): Result<number, UsageError> {
  const seconds = Number(value);
  return /^\d+(\.\d+)?$/.test(value.trim()) && Number.isFinite(seconds) && seconds <= 86_400
    ? ok(Math.round(seconds * 1000))
    : usage(`--wait-children takes seconds, 0 or more (got "${value}").`);
}

function sessionFlag(values: {
  continue?: boolean;
  resume?: string;
  fork?: boolean;
  "no-session"?: boolean;
  "read-only"?: boolean;
}): Result<SessionFlag, UsageError> {
  const fork = values.fork === true;
  const resuming = values.resume !== undefined;
  if (values.continue && resuming) return usage("Use either --continue or --resume, not both.");
  if (values["read-only"]) {
    if (fork) return usage("--read-only only shows a session; --fork continues it in a copy. Pick one.");
    if (values["no-session"]) return usage("--read-only shows a saved session; --no-session has none.");
    if (values.continue) return ok({ kind: "inspect", id: undefined });
    if (resuming && values.resume) return ok({ kind: "inspect", id: values.resume });
    return usage("--read-only needs the session to show: keel --read-only -c, or keel --read-only -r <id>.");
  }
  if (values["no-session"] && (values.continue || resuming))
    return usage("--no-session cannot be combined with --continue or --resume.");
  if (fork && !values.continue && !resuming)
    return usage("--fork needs --continue or --resume: it forks the session you continue.");
  if (values.continue) return ok({ kind: "continue", fork });
  if (resuming) return ok({ kind: "resume", id: values.resume || undefined, fork });
  if (values["no-session"]) return ok({ kind: "ephemeral" });
  return ok({ kind: "new" });
}

const MODELS_OPTIONS = {
  provider: { type: "string" },
  refresh: { type: "boolean" },
  json: { type: "boolean" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Subcommands: a first argument naming one (a prompt that starts with such a word needs -p or quotes). */
function parseModelsArgs(argv: readonly string[]): Result<CliCommand, UsageError> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof MODELS_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: MODELS_OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    return usage(`keel models: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return ok({ kind: "help" });
  if (positionals.length > 0)
    return usage(`keel models takes no arguments (got "${positionals.join(" ")}"); use --provider <name>.`);
  if (values.provider !== undefined && values.provider.trim() === "")
    return usage("--provider needs a value.");
  return ok({
    kind: "models",
    flags: {
      provider: values.provider,
      refresh: values.refresh === true,
      json: values.json === true,
      cwd: values.cwd,
    },
  });
}

export function parseCliArgs(argv: readonly string[]): Result<CliCommand, UsageError> {
  const first = argv[0];
  if (first !== undefined && (SUBCOMMANDS as readonly string[]).includes(first))
    return ok({ kind: "subcommand", name: first, argv: argv.slice(1) });
  if (argv[0] === "models") return parseModelsArgs(argv.slice(1));
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({
      args: normaliseArgv(argv),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    // parseArgs reports bad input by throwing TypeErrors with a readable message.
    return usage(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (values.help) return ok({ kind: "help" });
  if (values.version) return ok({ kind: "version" });

  const outputFormat = oneOf("output-format", values["output-format"] ?? "text", OUTPUT_FORMATS);
  if (outputFormat.isErr()) return err(outputFormat.error);
  const print = values.print === true;
  if (values["output-format"] !== undefined && !print && !values["read-only"])
    return usage("--output-format only applies to print mode (-p) and --read-only.");
  const inputFormat = oneOf("input-format", values["input-format"] ?? "text", INPUT_FORMATS);
  if (inputFormat.isErr()) return err(inputFormat.error);
  if (inputFormat.value === "stream-json") {
    if (!print || outputFormat.value !== "stream-json")
      return usage(
        "--input-format stream-json needs print mode with stream-json output: keel -p --input-format stream-json --output-format stream-json.",
      );
    if (positionals.length > 0)
      return usage("--input-format stream-json reads the prompts from stdin; give no prompt argument.");
  }
  const partial = values["include-partial-messages"] === true;
  if (partial && (!print || outputFormat.value !== "stream-json"))
    return usage("--include-partial-messages needs print mode with --output-format stream-json.");

  const permissionMode =
    values["permission-mode"] === undefined
      ? ok(undefined)
      : oneOf("permission-mode", values["permission-mode"], PERMISSION_MODES);
  if (permissionMode.isErr()) return err(permissionMode.error);

  const thinking =
    values.thinking === undefined ? ok(undefined) : oneOf("thinking", values.thinking, THINKING_FLAG_LEVELS);
  if (thinking.isErr()) return err(thinking.error);

  const maxTurns = values["max-turns"] === undefined ? ok(undefined) : parseMaxTurns(values["max-turns"]);
  if (maxTurns.isErr()) return err(maxTurns.error);

  const waitChildren =
    values["wait-children"] === undefined
      ? ok(DEFAULT_WAIT_CHILDREN_MS)
      : parseWaitChildren(values["wait-children"]);
  if (waitChildren.isErr()) return err(waitChildren.error);
  if (values["wait-children"] !== undefined && !print)
    return usage("--wait-children only applies to print mode (-p): the TUI keeps background agents running.");

  const session = sessionFlag(values);
  if (session.isErr()) return err(session.error);
  if (session.value.kind === "inspect" && positionals.length > 0)
    return usage(
      "--read-only shows the session and takes no prompt. To go on from it, fork it: keel -r <id> --fork -p …",
    );
  if (print && session.value.kind === "resume" && session.value.id === undefined)
    return usage(
      "--resume needs a session id in print mode (the picker is interactive only): keel -r <id> -p …",
    );

  if (values.model !== undefined && values.model.trim() === "") return usage("--model needs a value.");
  if (values.provider !== undefined && values.provider.trim() === "")
    return usage("--provider needs a value.");
  if (values.cwd !== undefined && values.cwd.trim() === "") return usage("--cwd needs a directory.");
  if (values.settings !== undefined && values.settings.trim() === "")
    return usage("--settings needs a settings file or a JSON object.");
  if ((values["mcp-config"] ?? []).some((v) => v.trim() === ""))
    return usage("--mcp-config needs an MCP config file or a JSON object.");

  const prompt = positionals.length > 0 ? positionals.join(" ") : undefined;
  return ok({
    kind: "run",
    flags: {
      print,
      prompt,
      outputFormat: outputFormat.value,
      inputFormat: inputFormat.value,
      includePartialMessages: partial,
      model: values.model,
      provider: values.provider,
      session: session.value,
      permissionMode: permissionMode.value,
      thinking: thinking.value,
      maxTurns: maxTurns.value,
      appendSystemPrompt: values["append-system-prompt"],
      systemPrompt: values["system-prompt"],
      allowedTools: toolRules([...(values.allowedTools ?? []), ...(values["allowed-tools"] ?? [])]),
      disallowedTools: toolRules([...(values.disallowedTools ?? []), ...(values["disallowed-tools"] ?? [])]),
      addDirs: values["add-dir"] ?? [],
      settings: values.settings,
      mcpConfigs: values["mcp-config"] ?? [],
      strictMcpConfig: values["strict-mcp-config"] === true,
      extensions: values.extension ?? [],
      noExtensions: values["no-extensions"] === true,
      cwd: values.cwd,
      debug: values.debug === true,
      waitChildrenMs: waitChildren.value,
    },
  });
}

/**
 * `--allowedTools "Bash(git log:*) Read,Edit"`: rules as Claude Code reads them (the SDK's
 * splitToolRules); the flag may also be given once per rule.
 */
export function toolRules(values: readonly string[]): string[] {
  return values.flatMap(splitToolRules);
}
