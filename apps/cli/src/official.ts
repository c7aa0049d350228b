// The official extensions that ship with keel, as modules the kernel loads when a session
// activates one: config `extensions.<id>.enabled: false` turns one off, and then none of its code
// is read. Here each comes from its npm package (the package API's way, and the tests'); the keel
// bin loads the same extensions from bundles of their own instead (bundled-extensions.ts).
import type { ExtensionModule } from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { importEsm } from "./esm-import.js";

/** Each id with its package and the name the package exports the definition under, in load order. */
export const OFFICIAL_EXTENSIONS = [
  { id: "todo", from: "@keel/ext-todo", name: "todoExtension" },
  { id: "skills", from: "@keel/ext-skills", name: "skillsExtension" },
  { id: "web-search", from: "@keel/ext-web-search", name: "webSearchExtension" },
  { id: "mcp", from: "@keel/ext-mcp", name: "mcpExtension" },
  { id: "connector", from: "@keel/ext-connector", name: "officialConnectorExtension" },
  { id: "subagent", from: "@keel/ext-subagent", name: "subagentExtension" },
] as const;

export function officialExtensions(): ExtensionModule[] {
  return OFFICIAL_EXTENSIONS.map(({ id, from, name }) => ({
    id,
    // Imported at run time by name: a bundler leaves the packages out of this graph.
    load: async () => ((await importEsm(from)) as Record<string, ExtensionDefinition>)[name]!,
  }));
}
