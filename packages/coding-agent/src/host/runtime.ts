// Builds the runtime an extension sees: typed config, journaled session state, UI, session facts.
import type { Model } from "@keel/ai";
import type {
  Diagnostic,
  ExtensionDefinition,
  ExtensionRuntime,
  ExtensionUI,
  SessionInfo,
  StateHandle,
} from "@keel/extension-sdk";
import { Value } from "@sinclair/typebox/value";

/** What the kernel provides to every extension runtime. */
export interface HostServices {
  cwd: string;
  session: SessionInfo;
  ui: ExtensionUI;
  model(): Model;
  sendMessage(text: string, options?: { deliverAs?: "steer" | "followUp" | "prompt" }): void;
  /** The extension's state on the current branch (undefined → its default). */
  readState(extensionId: string): unknown;
  /** Journals a new state (an app_state entry). */
  writeState(extensionId: string, state: unknown): void;
  report(diagnostic: Diagnostic): void;
}

export interface MutableRuntime extends ExtensionRuntime {
  instance: unknown;
}

function stateHandle(definition: ExtensionDefinition, services: HostServices): StateHandle<unknown> {
  const spec = definition.sessionState;
  const get = (): unknown => {
    const stored = services.readState(definition.id);
    if (stored !== undefined) return structuredClone(stored);
    return spec ? structuredClone(spec.default) : undefined;
  };
  const set = (next: unknown): void => {
    if (!spec) throw new Error(`extension ${definition.id} declares no sessionState; add one to keep state`);
    if (!Value.Check(spec.schema, next)) {
      const first = [...Value.Errors(spec.schema, next)][0];
      throw new Error(
        `extension ${definition.id}: state ${first?.path || "/"} ${first?.message ?? "does not match its schema"}`,
      );
    }
    services.writeState(definition.id, structuredClone(next));
  };
  return { get, set, update: (fn) => set(fn(get())) };
}

export function createRuntime(
  definition: ExtensionDefinition,
  config: unknown,
  services: HostServices,
): MutableRuntime {
  const id = definition.id;
  return {
    id,
    config,
    state: stateHandle(definition, services),
    instance: undefined,
    ui: services.ui,
    session: services.session,
    cwd: services.cwd,
    model: () => services.model(),
    report: (level, message) => services.report({ extensionId: id, level, message }),
    sendMessage: (text, options) => services.sendMessage(text, options),
  };
}
