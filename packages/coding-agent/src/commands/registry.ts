// The kernel's one command registry: built-in commands, the front end's, extensions', skills',
// MCP prompts and a project's command files, under one set of clash rules (stated on the SDK's
// CommandSpec). Every front end reads it live through `agent.commands`; nothing keeps a copy.
import { closestName } from "@keel/ai";
import {
  COMMAND_NAME_PATTERN,
  type CommandInfo,
  type CommandSource,
  type CommandSpec,
  commandInfo,
  type Registration,
} from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { errnoMessage } from "../fs/errno.js";
import type { AgentCommands, CodingAgentError, CommandOutcome } from "../kernel/types.js";
import { parseCommandLine } from "./line.js";

interface Row {
  spec: CommandSpec;
  /** Who may remove it: "builtin", "extension:<id>", "batch:<n>". */
  registrant: string;
  /** Who it belongs to, as a refusal names it: "built-in", "extension todo". */
  by: string;
}

/** How a refusal names what already holds a name. */
function describe(source: CommandSource): string {
  switch (source.kind) {
    case "builtin":
      return "built-in";
    case "host":
      return "the front end";
    case "custom":
      return source.owner ? `command file ${source.owner}` : "a command file";
    case "mcp":
      return source.owner ? `MCP server ${source.owner}` : "an MCP server";
    default:
      return source.owner ? `${source.kind} ${source.owner}` : source.kind;
  }
}

export class CommandRegistry implements AgentCommands {
  private readonly rows = new Map<string, Row>();
  private readonly listeners = new Set<() => void>();
  private batches = 0;

  /** `report` says why a command of a batch was refused (owner: who it came from). */
  constructor(private readonly report: (owner: string, message: string) => void) {}

  /** Why `registrant` cannot take `name`, or undefined. */
  refusal(name: unknown, registrant: string): string | undefined {
    if (typeof name !== "string" || !COMMAND_NAME_PATTERN.test(name))
      return `command "/${String(name)}" is not a valid name (letters, digits, _ . : -)`;
    const row = this.rows.get(name);
    if (!row) return undefined;
    if (row.registrant === registrant) return `command "/${name}" is already registered`;
    return `command "/${name}" is already provided by ${row.by}`;
  }

  /**
   * Registers one spec for `registrant`; `by` names it in later refusals (default: its source).
   * Answers the SDK's Registration: runtime.commands.add hands it to extensions.
   */
  add(spec: CommandSpec, registrant: string, by = describe(spec.source)): Registration {
    const refused = this.refusal(spec?.name, registrant);
    if (refused) return { ok: false, message: refused };
    if (typeof spec.run !== "function") return { ok: false, message: `command "/${spec.name}" has no run()` };
    this.rows.set(spec.name, { spec, registrant, by });
    this.changed();
    return { ok: true };
  }

  remove(name: string, registrant: string): boolean {
    const row = this.rows.get(name);
    if (!row || row.registrant !== registrant) return false;
    this.rows.delete(name);
    this.changed();
    return true;
  }

  removeAll(registrant: string): void {
    let any = false;
    for (const [name, row] of this.rows)
      if (row.registrant === registrant) {
        this.rows.delete(name);
        any = true;
      }
    if (any) this.changed();
  }

  registerCommands(specs: readonly CommandSpec[]): () => void {
    const registrant = `batch:${++this.batches}`;
    for (const spec of specs) {
      const added = this.add(spec, registrant);
      if (!added.ok) this.report(spec.source?.owner ?? spec.source?.kind ?? "kernel", added.message);
    }
    return () => this.removeAll(registrant);
  }

  list(): CommandInfo[] {
    return [...this.rows.values()].map((row) => commandInfo(row.spec));
  }

  get(name: string): CommandSpec | undefined {
    return this.rows.get(name)?.spec;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The known name a mistyped one most likely meant. */
  suggest(name: string): string | undefined {
    const names = [...this.rows.keys()];
    const near = closestName(name, names);
    if (near) return near;
    const longer = names.filter((n) => n.startsWith(name));
    return longer.length === 1 ? longer[0] : undefined;
  }

  async run(
    line: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Result<CommandOutcome, CodingAgentError>> {
    const parsed = parseCommandLine(line);
    if (!parsed) return err({ type: "command", message: `Not a command: ${line.trim().slice(0, 40)}` });
    const spec = this.get(parsed.name);
    if (!spec) {
      const suggestion = this.suggest(parsed.name);
      return err({
        type: "unknown_command",
        name: parsed.name,
        ...(suggestion ? { suggestion } : {}),
        message: `Unknown command /${parsed.name}.${suggestion ? ` Did you mean /${suggestion}?` : ""} /help lists the commands.`,
      });
    }
    let result: Awaited<ReturnType<CommandSpec["run"]>>;
    try {
      result = await spec.run(parsed.args, { signal: options.signal ?? new AbortController().signal });
    } catch (error) {
      return err({ type: "command", message: `/${spec.name} failed: ${errnoMessage(error)}` });
    }
    if (result?.error !== undefined) return err({ type: "command", message: result.error });
    return ok({
      ...(result?.message !== undefined ? { message: result.message } : {}),
      ...(result?.prompt !== undefined ? { prompt: result.prompt } : {}),
      ...(result?.prompt !== undefined && result.promptOptions !== undefined
        ? { promptOptions: result.promptOptions }
        : {}),
    });
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A front end's listener failing must not undo a registration or stop the others hearing of it.
      }
    }
  }
}
