// Validation of extension declarations before anything runs: ids, tool names and parameters,
// commands and catalog groups against built-ins and each other, configuration. An extension whose
// declaration cannot be honoured whole is refused with one reason; the first in load order wins.
import {
  EXTENSION_ID_PATTERN,
  type ExtensionCommand,
  HOOK_NAMES,
  type HookName,
  isTypeBoxSchema,
  listTools,
} from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { errnoMessage } from "../fs/errno.js";
import { CatalogRegistry, EXECUTE_TOOL, SEARCH_TOOLS } from "./catalogs.js";
import { resolveExtensionConfig } from "./config.js";
import type { ExtensionHostOptions, ExtensionSource } from "./extension-host.js";
import type { ConfigControl } from "./runtime.js";

export interface Accepted {
  source: ExtensionSource;
  config: ConfigControl;
}

export interface ValidationChecks {
  /** Why a command cannot be registered (its name, its source, what holds the name), or undefined. */
  commandRefusal(command: Partial<ExtensionCommand> | undefined, extensionId: string): string | undefined;
  /** Why a catalog group cannot be taken (pattern, built-in names), or undefined. */
  groupRefusal(group: string): string | undefined;
  reject(source: ExtensionSource, message: string): void;
  /** Something that does not stop the extension but would go unnoticed otherwise. */
  warn(source: ExtensionSource, message: string): void;
}

export function validateDeclarations(options: ExtensionHostOptions, checks: ValidationChecks): Accepted[] {
  const toolOwners = new Map<string, string>(options.reservedTools.map((n) => [n, "built-in"]));
  toolOwners.set(SEARCH_TOOLS, "built-in");
  toolOwners.set(EXECUTE_TOOL, "built-in");
  const commandsTaken = new Map<string, string>();
  const groupsTaken = new Map<string, string>();
  const ids = new Set<string>();
  const accepted: Accepted[] = [];
  for (const source of options.extensions) {
    const { definition } = source;
    const id = definition.id;
    const reject = (message: string) => checks.reject(source, message);
    if (typeof id !== "string" || !EXTENSION_ID_PATTERN.test(id)) {
      reject(`invalid extension id "${String(id)}": use lowercase letters, digits and dashes`);
      continue;
    }
    if (ids.has(id)) {
      reject(`duplicate extension id "${id}"`);
      continue;
    }
    const tools = safe(() => listTools(definition));
    if (tools.isErr()) {
      reject(`tools could not be listed: ${tools.error.message}`);
      continue;
    }
    const toolProblem = tools.value
      .map((t) => toolRefusal(t, toolOwners))
      .find((problem): problem is string => problem !== undefined);
    if (toolProblem) {
      reject(toolProblem);
      continue;
    }
    // A hook that is not a function would throw on every dispatch of its kind, for every extension.
    const hooks = Object.entries((definition.hooks ?? {}) as Record<string, unknown>);
    const hookProblem = hooks.find(
      ([name, fn]) => HOOK_NAMES.includes(name as HookName) && fn !== undefined && typeof fn !== "function",
    );
    if (hookProblem) {
      reject(`hook ${hookProblem[0]} is not a function`);
      continue;
    }
    for (const [name] of hooks.filter(([name]) => !HOOK_NAMES.includes(name as HookName)))
      checks.warn(source, `unknown hook "${name}", so it never runs; hooks are: ${HOOK_NAMES.join(", ")}`);
    const commandProblem = (definition.commands ?? [])
      .map(
        (c) =>
          checks.commandRefusal(c as Partial<ExtensionCommand> | undefined, id) ??
          (commandsTaken.has(c.name)
            ? `command "/${c.name}" is already provided by extension ${commandsTaken.get(c.name)}`
            : undefined),
      )
      .find((problem): problem is string => problem !== undefined);
    if (commandProblem) {
      reject(commandProblem);
      continue;
    }
    const groups = (definition.catalogs ?? []).map((c, i) => CatalogRegistry.groupFor(id, c, i));
    const groupProblem = groups
      .map(
        (g, i) =>
          checks.groupRefusal(g) ??
          (groupsTaken.has(g) || groups.indexOf(g) !== i
            ? `catalog group "${g}" is already used by extension ${groupsTaken.get(g) ?? id}`
            : toolOwners.get(g) === "built-in"
              ? `catalog group "${g}" is the name of a built-in tool`
              : undefined),
      )
      .find((problem): problem is string => problem !== undefined);
    if (groupProblem) {
      reject(groupProblem);
      continue;
    }
    const config = resolveExtensionConfig(definition, options.config);
    if (config.isErr()) {
      reject(config.error.message);
      continue;
    }
    ids.add(id);
    for (const t of tools.value) toolOwners.set(t.name, `extension ${id}`);
    for (const c of definition.commands ?? []) commandsTaken.set(c.name, id);
    for (const g of groups) groupsTaken.set(g, id);
    accepted.push({ source, config: config.value });
  }
  return accepted;
}

/** What the extension's own code threw while being read (listTools runs its getters). */
function safe<T>(fn: () => T): Result<T, { type: "threw"; message: string }> {
  try {
    return ok(fn());
  } catch (e) {
    return err({ type: "threw", message: errnoMessage(e) });
  }
}

/** Why a resident tool cannot be registered, or undefined. */
function toolRefusal(
  tool: { name?: unknown; parameters?: unknown; execute?: unknown },
  owners: Map<string, string>,
): string | undefined {
  if (typeof tool?.name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(tool.name))
    return `tool ${JSON.stringify(tool?.name)} has an invalid name (letters, digits, _ -; at most 64)`;
  if (owners.has(tool.name)) return `tool "${tool.name}" is already provided by ${owners.get(tool.name)}`;
  if (typeof tool.execute !== "function") return `tool "${tool.name}" has no execute()`;
  const params = tool.parameters;
  if (typeof params !== "object" || params === null || Array.isArray(params))
    return `tool "${tool.name}": parameters must be a schema object (TypeBox, or plain JSON Schema)`;
  const type = (params as { type?: unknown }).type;
  if (!isTypeBoxSchema(params) && type !== undefined && type !== "object")
    return `tool "${tool.name}": parameters must describe an object (type "object")`;
  return undefined;
}
