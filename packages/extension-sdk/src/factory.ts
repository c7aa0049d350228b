// The one-file style: `export default (keel) => { keel.on(…); keel.registerTool(…) }`.
// The factory runs against a recording API and becomes an ordinary definition; a factory that
// throws leaves nothing behind because nothing is registered until it returned.
import { Type } from "@sinclair/typebox";
import type { ToolCatalog } from "./catalogs.js";
import type { ExtensionCommand } from "./commands.js";
import type { ExtensionDefinition, ExtensionToolFor } from "./extension.js";
import { HOOK_NAMES, type HookName, type Hooks } from "./hooks.js";
import type { ExtensionRuntime } from "./runtime.js";
import { type ToolParameters, textResult } from "./tools.js";

type AnyRuntime = ExtensionRuntime;
type HookHandler<K extends HookName> = NonNullable<Hooks<AnyRuntime>[K]>;

export interface KeelAPI {
  /**
   * TypeBox's schema builder, so a one-file extension with no `node_modules` of its own can
   * build typed tool parameters: `keel.Type.Object({ path: keel.Type.String() })`.
   */
  readonly Type: typeof Type;
  /** Text result shorthand (the SDK's `textResult`). */
  readonly textResult: typeof textResult;
  /** Adds a handler; several handlers of one hook run in registration order. */
  on<K extends HookName>(hook: K, handler: HookHandler<K>): void;
  /** Parameters are a TypeBox schema (typed arguments) or plain JSON Schema. */
  registerTool<TParams extends ToolParameters, TDetails = unknown>(
    tool: ExtensionToolFor<AnyRuntime, TParams, TDetails>,
  ): void;
  registerCommand(command: ExtensionCommand<AnyRuntime>): void;
  registerCatalog(catalog: ToolCatalog<AnyRuntime>): void;
  /** Fixed text for the system prompt, added when a session starts (never mid-session). */
  registerContext(text: string): void;
  /** This extension's status-line item; works before and after the session starts. */
  setStatus(text: string | undefined): void;
}

export type ExtensionFactory = (keel: KeelAPI) => void | Promise<void>;

export type FactoryError = { type: "factory_failed"; extensionId: string; message: string };

/** Runs a factory and returns the definition it described, or the error it threw. */
export async function definitionFromFactory(
  id: string,
  factory: ExtensionFactory,
): Promise<{ ok: true; definition: ExtensionDefinition } | { ok: false; error: FactoryError }> {
  const handlers = new Map<HookName, HookHandler<HookName>[]>();
  const tools: ExtensionToolFor<AnyRuntime>[] = [];
  const commands: ExtensionCommand<AnyRuntime>[] = [];
  const catalogs: ToolCatalog<AnyRuntime>[] = [];
  const context: string[] = [];
  let live: AnyRuntime | undefined;
  let pendingStatus: { text: string | undefined } | undefined;

  // Once the factory has returned, its registrations are the definition; later calls (from a
  // timer, a hook) would change an extension the host already validated, so they are refused.
  let committed = false;
  const open = (what: string) => {
    if (committed)
      throw new Error(
        `${what} after loading: register everything while the factory runs (commands and catalogs can be added later through runtime.commands / runtime.catalogs)`,
      );
  };
  const api: KeelAPI = {
    Type,
    textResult,
    on(hook, handler) {
      open("keel.on");
      if (!HOOK_NAMES.includes(hook))
        throw new Error(`unknown hook "${hook}"; known: ${HOOK_NAMES.join(", ")}`);
      handlers.set(hook, [...(handlers.get(hook) ?? []), handler as HookHandler<HookName>]);
    },
    registerTool(tool) {
      open("keel.registerTool");
      tools.push(tool as unknown as ExtensionToolFor<AnyRuntime>);
    },
    registerCommand(command) {
      open("keel.registerCommand");
      commands.push(command);
    },
    registerCatalog(catalog) {
      open("keel.registerCatalog");
      catalogs.push(catalog);
    },
    registerContext(text) {
      open("keel.registerContext");
      context.push(text);
    },
    setStatus(text) {
      if (live) live.ui.setStatus(id, text);
      else pendingStatus = { text };
    },
  };

  try {
    await factory(api);
  } catch (e) {
    committed = true;
    return {
      ok: false,
      error: { type: "factory_failed", extensionId: id, message: e instanceof Error ? e.message : String(e) },
    };
  }

  committed = true;
  const hooks: Hooks<AnyRuntime> = {};
  for (const [hook, list] of handlers) {
    (hooks as Record<HookName, unknown>)[hook] = composeHandlers(hook, list);
  }
  const definition: ExtensionDefinition = {
    id,
    lifecycle: {
      activate: (ctx) => {
        live = ctx as unknown as AnyRuntime;
        if (pendingStatus) ctx.ui.setStatus(id, pendingStatus.text);
        return undefined;
      },
      deactivate: () => {
        live = undefined;
      },
    },
    hooks,
    tools: () => [...tools],
    commands: [...commands],
    catalogs: [...catalogs],
    ...(context.length > 0 ? { systemPrompt: context.join("\n\n") } : {}),
  };
  return { ok: true, definition };
}

/**
 * Several handlers of one hook become one: observers all run; transforms chain (a later
 * beforeModelCall's context is appended, a beforeToolCall's rewritten args feed the next, the
 * first block wins).
 */
function composeHandlers(hook: HookName, list: HookHandler<HookName>[]): HookHandler<HookName> {
  if (list.length === 1) return list[0]!;
  type Fn = (event: unknown, runtime: AnyRuntime, context: unknown) => unknown;
  const fns = list as unknown as Fn[];
  if (hook === "beforeModelCall") {
    return (async (event: unknown, runtime: AnyRuntime, context: unknown) => {
      const parts: string[] = [];
      for (const fn of fns) {
        const r = (await fn(event, runtime, context)) as { context?: string } | undefined;
        if (r?.context) parts.push(r.context);
      }
      return parts.length > 0 ? { context: parts.join("\n\n") } : undefined;
    }) as unknown as HookHandler<HookName>;
  }
  if (hook === "beforeToolCall" || hook === "beforeAgentStart" || hook === "afterToolCall") {
    return (async (event: Record<string, unknown>, runtime: AnyRuntime, context: unknown) => {
      let current = { ...event };
      let changed: Record<string, unknown> | undefined;
      for (const fn of fns) {
        const r = (await fn(current, runtime, context)) as Record<string, unknown> | undefined;
        if (!r) continue;
        if (r.action === "block") return r;
        if (hook === "beforeToolCall" && r.args) current = { ...current, args: r.args };
        if (hook === "beforeAgentStart" && typeof r.prompt === "string")
          current = { ...current, prompt: r.prompt };
        if (hook === "afterToolCall" && r.result) current = { ...current, result: r.result };
        changed = r;
      }
      if (!changed) return undefined;
      if (hook === "beforeToolCall") return { action: "continue", args: current.args };
      if (hook === "beforeAgentStart") return { prompt: current.prompt };
      return { result: current.result };
    }) as unknown as HookHandler<HookName>;
  }
  return (async (event: unknown, runtime: AnyRuntime, context: unknown) => {
    for (const fn of fns) await fn(event, runtime, context);
  }) as unknown as HookHandler<HookName>;
}
