// Command files as specs of the one registry (source "custom", owner: the file). A file keeps its
// bare name (`/review`) unless something holds it already — Keel's own commands, an extension's, or
// a file of higher precedence (the user's over the project's, as Claude Code ranks them) — and then
// takes its full name, `/<scope>:<subfolders>:<name>` (`/project:init`), said in one notice.
import type { CommandResult, CommandSpec } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { AgentCommands, CodingAgentError } from "../../kernel/types.js";
import type { CommandFile, DiscoveredCommands } from "./discover.js";
import { fillShellOutputs, shellCommands, substituteArguments } from "./expand.js";

export interface CommandFileHost {
  commands: Pick<AgentCommands, "get" | "registerCommands">;
  /**
   * Runs one `` !`cmd` `` through the session's shell tool, its sandbox and its permission gate,
   * with `allow` (the file's allowed-tools) in force for that call only.
   */
  runShell(
    command: string,
    allow: readonly string[],
    signal: AbortSignal,
  ): Promise<Result<string, CodingAgentError>>;
  report(level: "info" | "warning", message: string): void;
}

/** The name that is always the file's own: scope, subfolders and name (`project:frontend:component`). */
export function fullName(file: CommandFile): string {
  return [file.scope, ...file.dirs, file.name].join(":");
}

/** Where the file comes from, as Claude Code shows it after the description: `(project:frontend)`. */
export function originLabel(file: CommandFile): string {
  return [file.scope, ...file.dirs].join(":");
}

export interface NamedFile {
  name: string;
  file: CommandFile;
  /** Set when the bare name was taken: who holds it. */
  displacedBy?: string;
}

/**
 * Each file's name, in precedence order. `holder(name)` says who already holds a name in the
 * registry (undefined: free). A file whose full name is taken too (the same path under `.keel/`
 * and `.claude/`) is left out, with why.
 */
export function nameFiles(
  files: readonly CommandFile[],
  holder: (name: string) => string | undefined,
): { named: NamedFile[]; problems: string[] } {
  const named: NamedFile[] = [];
  const problems: string[] = [];
  const mine = new Map<string, CommandFile>();
  const heldBy = (name: string) => {
    const file = mine.get(name);
    return file ? file.shown : holder(name);
  };
  for (const file of files) {
    const bare = heldBy(file.name);
    if (bare === undefined) {
      mine.set(file.name, file);
      named.push({ name: file.name, file });
      continue;
    }
    const full = fullName(file);
    const fullHeld = heldBy(full);
    if (fullHeld !== undefined) {
      problems.push(`${file.shown}: /${full} is already ${fullHeld}; this file is not used`);
      continue;
    }
    mine.set(full, file);
    named.push({ name: full, file, displacedBy: bare });
  }
  return { named, problems };
}

/** The spec of one file under its name: expands, runs its shell lines, returns the prompt. */
export function commandFileSpec(named: NamedFile, host: CommandFileHost): CommandSpec {
  const { file, name } = named;
  return {
    name,
    description: `${file.description} (${originLabel(file)})`,
    ...(file.argumentHint ? { argumentHint: file.argumentHint } : {}),
    source: { kind: "custom", owner: file.shown },
    run: async (args, { signal }): Promise<CommandResult> => {
      const text = substituteArguments(file.body, args);
      const outputs: string[] = [];
      for (const command of shellCommands(text)) {
        const ran = await host.runShell(command, file.allowedTools, signal);
        if (ran.isErr())
          return {
            error: `/${name}: its line !\`${command}\` did not run (${ran.error.message}), so nothing was sent. ${file.allowedTools.length > 0 ? "Its allowed-tools do not cover it" : "Add a rule for it to the file's allowed-tools"}, or allow it in your permissions.`,
          };
        outputs.push(ran.value);
      }
      const prompt = fillShellOutputs(text, outputs).trim();
      if (prompt === "") return { error: `/${name}: ${file.shown} has no text to send.` };
      const options = {
        ...(file.model ? { model: file.model } : {}),
        ...(file.allowedTools.length > 0 ? { allow: file.allowedTools } : {}),
      };
      return { prompt, ...(Object.keys(options).length > 0 ? { promptOptions: options } : {}) };
    },
  };
}

/** Registers the files' commands; problems and the renaming notice reported once each. */
export function registerCommandFiles(host: CommandFileHost, discovered: DiscoveredCommands): () => void {
  for (const problem of discovered.problems) host.report("warning", problem);
  const { named, problems } = nameFiles(discovered.files, (name) => {
    const spec = host.commands.get(name);
    if (!spec) return undefined;
    if (spec.source.kind === "custom") return spec.source.owner ?? "another command file";
    if (spec.source.kind === "builtin" || spec.source.kind === "host") return "Keel's own";
    return `${spec.source.kind} ${spec.source.owner ?? ""}'s`.replace(" 's", "'s");
  });
  for (const problem of problems) host.report("warning", problem);
  const renamed = named.filter((n) => n.displacedBy !== undefined);
  if (renamed.length > 0)
    host.report(
      "info",
      `Command files whose name is taken answer to their full name: ${renamed
        .map((n) => `/${n.name} (${n.file.shown}; /${n.file.name} is ${n.displacedBy})`)
        .join(", ")}.`,
    );
  return host.commands.registerCommands(named.map((n) => commandFileSpec(n, host)));
}
