// Where agent definitions come from and which one wins: the built-ins, then ~/.claude/agents (when
// the user lets Keel read ~/.claude), ~/.keel/agents, then a trusted project's .claude/agents and
// .keel/agents (a later source replaces an agent of the same name). Each folder is read with its
// subfolders, as Claude Code reads them. The user's folders are read again when a listing or a
// file's size or mtime changed; a project's are read once, at session start: they are part of what
// the user trusted, and a change there makes the project ask for trust again at the next start.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import type { WorkspaceInfo } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import {
  type AgentDefinition,
  BUILTIN_AGENTS,
  type DefinitionSource,
  parseDefinition,
} from "./definitions.js";

export interface AgentFolder {
  dir: string;
  source: Exclude<DefinitionSource, "builtin">;
  /** Read again when it changes during the session (only the user's own folder). */
  live: boolean;
}

/** Lowest precedence first. Nothing of an untrusted project is listed, let alone read. */
export function agentFolders(
  workspace: Pick<WorkspaceInfo, "cwd" | "projectRoot" | "keelHome" | "trusted" | "claudeHome">,
): AgentFolder[] {
  const folders: AgentFolder[] = [];
  if (workspace.claudeHome)
    folders.push({ dir: join(workspace.claudeHome, "agents"), source: "user", live: true });
  folders.push({ dir: join(workspace.keelHome, "agents"), source: "user", live: true });
  if (workspace.trusted)
    folders.push(
      { dir: join(workspace.projectRoot, ".claude", "agents"), source: "claude", live: false },
      { dir: join(workspace.projectRoot, ".keel", "agents"), source: "project", live: false },
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

interface Listed {
  path: string;
  stamp: string;
  /** Empty for a live folder: its files are read again when they are parsed. */
  text: Result<string, { type: "unreadable"; message: string }>;
}

function read(path: string): Listed["text"] {
  try {
    return ok(readFileSync(path, "utf8"));
  } catch (e) {
    return err({ type: "unreadable", message: e instanceof Error ? e.message : String(e) });
  }
}

/** How deep subfolders are read, and how many files a folder gives at most. */
const MAX_DEPTH = 4;
const MAX_FILES = 500;

/**
 * The folder's `.md` files, subfolders included (name order, a folder's own files first), with a
 * stamp that changes when one does; texts only when `withText`. Dot-names are skipped.
 */
function markdownFiles(dir: string, withText: boolean, depth = 0, files: Listed[] = []): Listed[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files; // No such folder: nothing defined there.
  }
  const folders: string[] = [];
  for (const name of names.filter((n) => !n.startsWith(".")).sort()) {
    if (files.length >= MAX_FILES) break;
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (stat.isDirectory()) folders.push(path);
      else if (stat.isFile() && name.endsWith(".md"))
        files.push({ path, stamp: `${stat.size}:${stat.mtimeMs}`, text: withText ? read(path) : ok("") });
    } catch {
      // Removed between the listing and the stat: the next look sees it gone.
    }
  }
  if (depth < MAX_DEPTH) for (const folder of folders) markdownFiles(folder, withText, depth + 1, files);
  return files;
}

export class AgentFiles {
  private signature: string | undefined;
  private current: AgentSet = {
    agents: new Map(BUILTIN_AGENTS.map((a) => [a.name, a])),
    problems: [],
    replaced: [],
  };
  /** The folders that are not live, as first read. */
  private readonly frozen = new Map<string, Listed[]>();

  constructor(private readonly folders: AgentFolder[]) {}

  get set(): AgentSet {
    return this.current;
  }

  private list(folder: AgentFolder): Listed[] {
    if (folder.live) return markdownFiles(folder.dir, false);
    const files = this.frozen.get(folder.dir) ?? markdownFiles(folder.dir, true);
    this.frozen.set(folder.dir, files);
    return files;
  }

  /**
   * Undefined when nothing changed since the last call; otherwise whether the agents changed (the
   * model must be told) and the files that could not be used.
   */
  refresh(): { changed: boolean; problems: AgentSet["problems"] } | undefined {
    const listed = this.folders.map((folder) => ({ folder, files: this.list(folder) }));
    const signature = JSON.stringify(listed.map((l) => l.files.map((f) => [f.path, f.stamp])));
    if (signature === this.signature) return undefined;
    this.signature = signature;
    const agents = new Map(BUILTIN_AGENTS.map((a) => [a.name, a]));
    const problems: AgentSet["problems"] = [];
    const replaced: AgentDefinition[] = [];
    for (const { folder, files } of listed)
      for (const file of files) {
        const text = folder.live ? read(file.path) : file.text;
        if (text.isErr()) {
          problems.push({ path: file.path, message: `it could not be read: ${text.error.message}` });
          continue;
        }
        const parsed = parseDefinition(text.value, file.path, folder.source, basename(file.path, ".md"));
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

/**
 * For the trust dialog, before the user decides: one line per agent a trusted project would add
 * or replace, with the tools and model it asks for, and one per file that could not be used.
 */
export function projectAgentsPreview(project: { projectRoot: string }): string[] {
  const files = new AgentFiles(
    agentFolders({
      cwd: project.projectRoot,
      projectRoot: project.projectRoot,
      keelHome: "",
      trusted: true,
    }).filter((f) => f.source !== "user"),
  );
  const outcome = files.refresh();
  const shown = (path: string) => relative(project.projectRoot, path);
  const lines = [...files.set.agents.values()]
    .filter((a) => a.path)
    .map((a) => {
      const what = a.description.length > 80 ? `${a.description.slice(0, 79)}…` : a.description;
      const tools = a.tools ? `tools ${a.tools.join(", ")}` : "all the session's tools";
      return `agent ${a.name} (${shown(a.path!)}): ${what}; ${tools}${a.model ? `; model ${a.model}` : ""}`;
    });
  for (const p of outcome?.problems ?? [])
    lines.push(`agent file ${shown(p.path)} would not be used: ${p.message}`);
  return lines;
}
