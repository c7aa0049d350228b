// Where agent definitions come from and which one wins: the built-ins, then ~/.keel/agents, then a
// trusted project's .claude/agents and .keel/agents (a later source replaces an agent of the same
// name). Re-read only when a folder's listing or a file's size or mtime changed.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { WorkspaceInfo } from "@keel/extension-sdk";
import {
  type AgentDefinition,
  BUILTIN_AGENTS,
  type DefinitionSource,
  parseDefinition,
} from "./definitions.js";

export interface AgentFolder {
  dir: string;
  source: Exclude<DefinitionSource, "builtin">;
}

/** Lowest precedence first. Nothing of an untrusted project is listed, let alone read. */
export function agentFolders(workspace: WorkspaceInfo): AgentFolder[] {
  const folders: AgentFolder[] = [{ dir: join(workspace.keelHome, "agents"), source: "user" }];
  if (workspace.trusted)
    folders.push(
      { dir: join(workspace.projectRoot, ".claude", "agents"), source: "claude" },
      { dir: join(workspace.projectRoot, ".keel", "agents"), source: "project" },
    );
  return folders;
}

export interface AgentSet {
  /** By name, the winning definition of each. */
  agents: Map<string, AgentDefinition>;
  /** Files that could not be used, with why (shown in /agents, reported once each). */
  problems: { path: string; message: string }[];
  /** Definitions a later source replaced. */
  replaced: AgentDefinition[];
}

function markdownFiles(dir: string): { path: string; stamp: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // No such folder: nothing defined there.
  }
  const files: { path: string; stamp: string }[] = [];
  for (const name of names.filter((n) => n.endsWith(".md")).sort()) {
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (stat.isFile()) files.push({ path, stamp: `${stat.size}:${stat.mtimeMs}` });
    } catch {
      // Removed between the listing and the stat: the next scan sees it gone.
    }
  }
  return files;
}

/** Reads the folders again when something in them changed since the last look. */
export class AgentFiles {
  private signature = "";
  private current: AgentSet = {
    agents: new Map(BUILTIN_AGENTS.map((a) => [a.name, a])),
    problems: [],
    replaced: [],
  };

  constructor(private readonly folders: AgentFolder[]) {}

  get set(): AgentSet {
    return this.current;
  }

  /**
   * Undefined when no folder changed since the last call; otherwise whether the agents changed
   * (the model must be told) and the files that could not be used.
   */
  refresh(): { changed: boolean; problems: AgentSet["problems"] } | undefined {
    const listed = this.folders.map((f) => ({ ...f, files: markdownFiles(f.dir) }));
    const signature = JSON.stringify(listed.map((f) => f.files));
    if (signature === this.signature) return undefined;
    this.signature = signature;
    const agents = new Map(BUILTIN_AGENTS.map((a) => [a.name, a]));
    const problems: AgentSet["problems"] = [];
    const replaced: AgentDefinition[] = [];
    for (const folder of listed)
      for (const file of folder.files) {
        let text: string;
        try {
          text = readFileSync(file.path, "utf8");
        } catch (e) {
          problems.push({ path: file.path, message: `could not be read: ${(e as Error).message}` });
          continue;
        }
        const parsed = parseDefinition(text, file.path, folder.source, basename(file.path, ".md"));
        if (parsed.isErr()) {
          problems.push({ path: file.path, message: parsed.error.message });
          continue;
        }
        const before = agents.get(parsed.value.name);
        if (before) replaced.push(before);
        agents.set(parsed.value.name, parsed.value);
      }
    const changed =
      JSON.stringify([...agents.values()]) !== JSON.stringify([...this.current.agents.values()]);
    this.current = { agents, problems, replaced };
    return { changed, problems };
  }
}
