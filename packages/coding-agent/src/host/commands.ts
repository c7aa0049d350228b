// An extension's command as the registry holds it: its `run` bound to the extension's runtime,
// under a deadline, a throw turned into the command's error; its source the extension unless it
// says it is a skill, an MCP prompt or a command file it turned into a command.
import type { CommandSpec, ExtensionCommand, ExtensionRuntime, Registration } from "@keel/extension-sdk";
import type { CommandRegistry } from "../commands/registry.js";
import { withDeadline } from "./deadline.js";

/** A command may ask the user (approvals, pickers): its deadline is for runaways, not for people. */
const COMMAND_DEADLINE_MS = 600_000;

const EXTENSION_KINDS = new Set(["extension", "skill", "mcp", "custom"]);

/** Who may remove an extension's commands from the registry. */
export const extensionRegistrant = (extensionId: string) => `extension:${extensionId}`;

/** Why an extension's command cannot be registered (its source, then the registry's clash rules). */
export function extensionCommandRefusal(
  registry: CommandRegistry,
  extensionId: string,
  command: Partial<ExtensionCommand> | undefined,
): string | undefined {
  const kind = command?.source?.kind;
  if (kind !== undefined && !EXTENSION_KINDS.has(kind))
    return `command "/${String(command?.name)}" cannot claim source "${String(kind)}" (an extension's are extension, skill, mcp or custom)`;
  return registry.refusal(command?.name, extensionRegistrant(extensionId));
}

/** Answers the SDK's Registration (runtime.commands.add's contract). */
export function addExtensionCommand(
  registry: CommandRegistry,
  extensionId: string,
  command: ExtensionCommand,
  runtime: ExtensionRuntime,
  report: (extensionId: string, message: string) => void,
): Registration {
  const refused = extensionCommandRefusal(registry, extensionId, command);
  if (refused) return { ok: false, message: refused };
  if (typeof command.run !== "function")
    return { ok: false, message: `command "/${command.name}" has no run()` };
  const spec: CommandSpec = {
    name: command.name,
    description: command.description,
    ...(command.argumentHint !== undefined ? { argumentHint: command.argumentHint } : {}),
    ...(command.interactive !== undefined ? { interactive: command.interactive } : {}),
    ...(command.needsTerminal === true ? { needsTerminal: true } : {}),
    source: command.source ?? { kind: "extension", owner: extensionId },
    run: async (args, context) => {
      const outcome = await withDeadline(
        (signal) => command.run(args, runtime as never, { signal }),
        COMMAND_DEADLINE_MS,
        context.signal,
      );
      if (outcome.isErr()) {
        report(extensionId, `/${command.name} ${outcome.error.type}: ${outcome.error.message}`);
        return { error: `/${command.name} failed: ${outcome.error.message}` };
      }
      return outcome.value ?? {};
    },
  };
  return registry.add(spec, extensionRegistrant(extensionId), `extension ${extensionId}`);
}
