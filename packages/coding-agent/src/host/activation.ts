// Activation of one extension, with rollback: what it adds while activating (commands, catalogs,
// mention sources) is staged and registered only when activation and its tool listing succeed,
// so a failure leaves nothing of it behind; deactivation removes all it registered.
import type { ExtensionCommand } from "@keel/extension-sdk";
import { listTools } from "@keel/extension-sdk";
import type { CommandRegistry } from "../commands/registry.js";
import { errnoMessage } from "../fs/errno.js";
import { CatalogRegistry } from "./catalogs.js";
import { addExtensionCommand, extensionCommandRefusal, extensionRegistrant } from "./commands.js";
import { withDeadline } from "./deadline.js";
import type { Active, ExtensionSource } from "./extension-host.js";
import type { MentionTable } from "./mentions.js";
import { createRuntime, type HostServices, type MutableRuntime } from "./runtime.js";
import type { Accepted } from "./validation.js";

type ExtensionTool = Active["tools"][number];

/** What activation registers into and reports to: the host's, shared by every extension. */
export interface ActivationContext {
  services: HostServices;
  commands: CommandRegistry;
  registry: CatalogRegistry;
  mentions: MentionTable;
  /** Per-hook deadline; activation gets twice this. */
  deadlineMs: number;
  report(extensionId: string, level: "info" | "warning" | "error", message: string): void;
  /** The extension is not running, and why (one diagnostic; a required one fails the start). */
  fail(source: ExtensionSource, message: string): void;
}

function addCommand(
  ctx: ActivationContext,
  extensionId: string,
  command: ExtensionCommand,
  runtime: MutableRuntime,
) {
  return addExtensionCommand(ctx.commands, extensionId, command, runtime as never, (id, message) =>
    ctx.report(id, "error", message),
  );
}

/**
 * Activates one extension. Commands and catalogs it adds while activating are held back and
 * registered only when activation succeeds, so a failure leaves nothing of it behind. Returns
 * the active extension, or undefined when it failed (already reported through `ctx.fail`).
 */
export async function activateExtension(
  ctx: ActivationContext,
  item: { source: ExtensionSource; config: Accepted["config"] },
): Promise<Active | undefined> {
  const { definition, source: where, root } = item.source;
  const id = definition.id;
  let live = false;
  const staged: (() => void)[] = [];
  // The registries' add() answers are the SDK's Registration (runtime.commands/catalogs/mentions).
  const runtime: MutableRuntime = createRuntime(definition, item.config, ctx.services, {
    commands: {
      add: (command) => {
        if (live) return addCommand(ctx, id, command, runtime);
        const refused = extensionCommandRefusal(ctx.commands, id, command);
        if (refused) return { ok: false, message: refused };
        staged.push(() => {
          const added = addCommand(ctx, id, command, runtime);
          if (!added.ok) ctx.report(id, "error", added.message);
        });
        return { ok: true };
      },
      remove: (name) => ctx.commands.remove(name, extensionRegistrant(id)),
    },
    catalogs: {
      add: (catalog) => {
        // Checked here: a staged bad catalog would otherwise throw out of the host's start.
        if (typeof catalog?.id !== "string" || typeof catalog.discover !== "function")
          return { ok: false, message: "a catalog needs an id (a string) and a discover function" };
        const group = CatalogRegistry.groupFor(id, catalog, -1);
        if (live) {
          const refused = ctx.registry.add(id, catalog, runtime, group);
          return refused ? { ok: false, message: refused } : { ok: true };
        }
        const refused = ctx.registry.refusal(group);
        if (refused) return { ok: false, message: refused };
        staged.push(() => {
          const problem = ctx.registry.add(id, catalog, runtime, group);
          if (problem) ctx.report(id, "error", problem);
        });
        return { ok: true };
      },
      remove: (catalogId) => ctx.registry.remove(id, catalogId),
    },
    mentions: {
      add: (source) => {
        if (live) return ctx.mentions.add(id, source);
        staged.push(() => {
          const added = ctx.mentions.add(id, source);
          if (!added.ok) ctx.report(id, "error", added.message);
        });
        return { ok: true };
      },
      remove: (sourceId) => ctx.mentions.remove(id, sourceId),
    },
  });
  const activate = definition.lifecycle?.activate;
  if (activate) {
    let activation: Promise<unknown> | undefined;
    const outcome = await withDeadline((signal) => {
      activation = Promise.resolve(
        activate(Object.assign(Object.create(runtime) as object, { signal }) as never),
      );
      return activation;
    }, ctx.deadlineMs * 2);
    if (outcome.isErr()) {
      ctx.fail(
        item.source,
        `activation ${outcome.error.type === "timeout" ? "timed out" : "failed"}: ${outcome.error.message}`,
      );
      // One that ignored its signal and finishes later has opened what it meant to (connections,
      // watchers): it is deactivated then, so nothing of it is left running.
      if (outcome.error.type === "timeout")
        void activation?.then(
          (instance) => {
            runtime.instance = instance;
            return deactivateExtension(ctx, { definition, runtime, source: where, tools: [] });
          },
          () => undefined,
        );
      return undefined;
    }
    runtime.instance = outcome.value;
  }
  // The session's tool list, fixed now: only declared tools (their names were checked), and a
  // tools() that throws given the runtime rolls this extension back like a failed activation.
  const tools: ExtensionTool[] = [];
  try {
    const declared = new Set(listTools(definition).map((t) => t.name));
    for (const tool of listTools(definition, runtime as never)) {
      if (declared.has(tool.name)) tools.push(tool);
      else
        ctx.report(
          id,
          "error",
          `tool "${tool.name}" is offered but was not declared (return every tool you may offer when tools() gets no runtime); left out`,
        );
    }
  } catch (e) {
    ctx.fail(item.source, `tools could not be listed: ${errnoMessage(e)}`);
    await deactivateExtension(ctx, { definition, runtime, source: where, tools: [] });
    return undefined;
  }
  live = true;
  for (const c of definition.commands ?? []) {
    const added = addCommand(ctx, id, c as ExtensionCommand, runtime);
    if (!added.ok) ctx.report(id, "error", added.message);
  }
  (definition.catalogs ?? []).forEach((catalog, i) => {
    const problem = ctx.registry.add(id, catalog, runtime, CatalogRegistry.groupFor(id, catalog, i));
    if (problem) ctx.report(id, "error", problem);
  });
  for (const register of staged) register();
  return { definition, runtime, source: where, ...(root ? { root } : {}), tools };
}

/** Removes everything the extension registered, then runs its deactivate within the deadline. */
export async function deactivateExtension(ctx: ActivationContext, active: Active): Promise<void> {
  ctx.commands.removeAll(extensionRegistrant(active.definition.id));
  ctx.mentions.removeAll(active.definition.id);
  ctx.registry.removeAll(active.definition.id);
  const deactivate = active.definition.lifecycle?.deactivate;
  if (!deactivate) return;
  const outcome = await withDeadline(() => deactivate(active.runtime as never), ctx.deadlineMs);
  if (outcome.isErr())
    ctx.report(active.definition.id, "warning", `deactivate ${outcome.error.type}: ${outcome.error.message}`);
}
