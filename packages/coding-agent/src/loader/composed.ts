// The extensions a host composes (the CLI's official ones): definitions as given, and modules
// loaded here, only the enabled ones and all at once, so a start reads no code of an extension
// config turns off. A module that fails to load, or loads under another id, is one failure that
// leaves the others loading, like a user extension's.

import type { ExtensionDefinition } from "@keel/extension-sdk";
import { isExtensionDefinition } from "@keel/extension-sdk";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionSource } from "../host/extension-host.js";
import type { ExtensionModule } from "../kernel/types.js";
import type { LoadFailureInfo } from "./load-extensions.js";

const SOURCE = "built-in";

export interface ComposedResult {
  /** In the order given. */
  sources: ExtensionSource[];
  failures: LoadFailureInfo[];
}

function isModule(entry: ExtensionDefinition | ExtensionModule): entry is ExtensionModule {
  return typeof (entry as ExtensionModule).load === "function";
}

export async function loadComposed(
  entries: readonly (ExtensionDefinition | ExtensionModule)[],
  enabled: (id: string) => boolean,
): Promise<ComposedResult> {
  const loaded = await Promise.all(
    entries.map(async (entry): Promise<ExtensionSource | LoadFailureInfo | undefined> => {
      if (!isModule(entry)) return { definition: entry, source: SOURCE };
      if (!enabled(entry.id)) return undefined;
      const fail = (message: string): LoadFailureInfo => ({
        extensionId: entry.id,
        path: SOURCE,
        message: `extension "${entry.id}" (${SOURCE}) could not be loaded: ${message}`,
        explicit: false,
      });
      let definition: unknown;
      try {
        definition = await entry.load();
      } catch (e) {
        return fail(errnoMessage(e));
      }
      if (!isExtensionDefinition(definition)) return fail("its module gave no extension definition");
      if (definition.id !== entry.id) return fail(`its definition has the id "${definition.id}"`);
      return { definition, source: SOURCE };
    }),
  );
  const result: ComposedResult = { sources: [], failures: [] };
  for (const item of loaded) {
    if (item === undefined) continue;
    if ("definition" in item) result.sources.push(item);
    else result.failures.push(item);
  }
  return result;
}
