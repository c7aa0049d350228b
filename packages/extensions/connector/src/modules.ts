// Connectors from other packages, named in the user's config (`modules`: paths to their built
// entry files). Only the user's layer can name them: a project never loads code this way.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import { importEsm } from "./esm-import.js";
import type { Connector } from "./sdk/connector.js";

export function isConnector(value: unknown): value is Connector {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Partial<Connector>;
  return (
    typeof c.id === "string" &&
    typeof c.label === "string" &&
    typeof c.client === "function" &&
    typeof c.classifyError === "function" &&
    Array.isArray(c.actions)
  );
}

function resolvePath(spec: string): string | undefined {
  if (spec.startsWith("~/")) return join(homedir(), spec.slice(2));
  return isAbsolute(spec) ? spec : undefined;
}

export interface LoadedModules {
  connectors: Connector[];
  problems: string[];
}

/** Imports each module and takes every exported connector (the default export and named ones). */
export async function loadConnectorModules(
  specs: readonly string[],
  taken: ReadonlySet<string>,
): Promise<LoadedModules> {
  const connectors: Connector[] = [];
  const problems: string[] = [];
  const ids = new Set(taken);
  for (const spec of specs) {
    const path = resolvePath(spec);
    if (!path) {
      problems.push(
        `modules: "${spec}" is not an absolute path (or ~/…) to a connector package's entry file`,
      );
      continue;
    }
    let exported: Record<string, unknown>;
    try {
      exported = (await importEsm(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (e) {
      problems.push(`modules: ${spec} could not be loaded (${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    const found = [...new Set(Object.values(exported).filter(isConnector))];
    if (found.length === 0) problems.push(`modules: ${spec} exports no connector (defineConnector)`);
    for (const connector of found) {
      if (ids.has(connector.id)) {
        problems.push(
          `modules: ${spec}: a connector "${connector.id}" is already loaded; this one is skipped`,
        );
        continue;
      }
      ids.add(connector.id);
      connectors.push(connector);
    }
  }
  return { connectors, problems };
}
