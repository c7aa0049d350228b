// Slash commands of extensions: declared ones and those added after activation share one table and
// one set of clash checks (built-in names, other extensions' commands, the name pattern).
import type { CommandResult, ExtensionCommand, ExtensionRuntime, Registration } from "@keel/extension-sdk";
import { withDeadline } from "./deadline.js";

export interface HostedCommand {
  name: string;
  description: string;
  argumentHint?: string;
  /** The extension id. */
  source: string;
  run(args: string, signal?: AbortSignal): Promise<CommandResult | undefined>;
}

const COMMAND_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
/** A command may ask the user (approvals, pickers): its deadline is for runaways, not for people. */
const COMMAND_DEADLINE_MS = 600_000;

interface Row {
  extensionId: string;
  command: ExtensionCommand;
  runtime: ExtensionRuntime;
}

export class CommandTable {
  private readonly rows = new Map<string, Row>();

  constructor(
    private readonly reserved: ReadonlySet<string>,
    private readonly report: (extensionId: string, message: string) => void,
  ) {}

  /** Why `name` cannot be taken by `extensionId`, or undefined. */
  refusal(name: unknown, extensionId: string): string | undefined {
    if (typeof name !== "string" || !COMMAND_PATTERN.test(name))
      return `command "/${String(name)}" is not a valid name (letters, digits, _ . : -)`;
    if (this.reserved.has(name)) return `command "/${name}" is already provided by built-in`;
    const owner = this.rows.get(name);
    if (owner && owner.extensionId !== extensionId)
      return `command "/${name}" is already provided by extension ${owner.extensionId}`;
    if (owner) return `command "/${name}" is already registered`;
    return undefined;
  }

  add(extensionId: string, command: ExtensionCommand, runtime: ExtensionRuntime): Registration {
    const refused = this.refusal(command?.name, extensionId);
    if (refused) return { ok: false, message: refused };
    if (typeof command.run !== "function")
      return { ok: false, message: `command "/${command.name}" has no run()` };
    this.rows.set(command.name, { extensionId, command, runtime });
    return { ok: true };
  }

  remove(extensionId: string, name: string): boolean {
    const row = this.rows.get(name);
    if (!row || row.extensionId !== extensionId) return false;
    this.rows.delete(name);
    return true;
  }

  removeAll(extensionId: string): void {
    for (const [name, row] of this.rows) if (row.extensionId === extensionId) this.rows.delete(name);
  }

  list(): HostedCommand[] {
    return [...this.rows.values()].map(({ extensionId, command, runtime }) => ({
      name: command.name,
      description: command.description,
      ...(command.argumentHint ? { argumentHint: command.argumentHint } : {}),
      source: extensionId,
      run: async (args: string, signal?: AbortSignal) => {
        const outcome = await withDeadline(
          (s) => command.run(args, runtime as never, { signal: s }),
          COMMAND_DEADLINE_MS,
          signal,
        );
        if (!outcome.ok) {
          this.report(extensionId, `/${command.name} ${outcome.reason}: ${outcome.message}`);
          return { message: `/${command.name} failed: ${outcome.message}` };
        }
        return outcome.value ?? undefined;
      },
    }));
  }
}
