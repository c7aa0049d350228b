// Composition: parsed flags → CodingAgentOptions. The official extensions are on by default;
// everything else (config, trust, extension loading, model choice) is the kernel's job.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { listModels, listProviders } from "@keel/ai";
import type { CodingAgentOptions, SessionChoice } from "@keel/coding-agent";
import { todoExtension } from "@keel/ext-todo";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import type { CliFlags, SessionFlag, UsageError } from "./args.js";

/** The official extensions that ship with keel; config `extensions.<id>.enabled: false` turns one off. */
export function officialExtensions(): ExtensionDefinition[] {
  return [todoExtension];
}

export interface Composed {
  options: CodingAgentOptions;
  /**
   * `--continue --fork`: the kernel can fork a session given by id but not "the latest", so the
   * CLI continues it and forks the open agent before the first prompt.
   */
  forkAfterOpen: boolean;
}

const usage = (message: string): Result<never, UsageError> => err({ type: "usage", message });

function resolveCwd(dir: string | undefined, base: string): Result<string, UsageError> {
  const cwd = resolve(base, dir ?? ".");
  try {
    if (statSync(cwd).isDirectory()) return ok(cwd);
  } catch {
    // Reported below, with the path.
  }
  return usage(`--cwd ${cwd} is not a directory.`);
}

/**
 * `--provider p` alone picks the catalog's first model for p (the catalog lists a provider's
 * newest flagship first); with `--model id` it qualifies a bare id as `p/id`.
 */
function modelRef(
  model: string | undefined,
  provider: string | undefined,
): Result<string | undefined, UsageError> {
  if (provider === undefined) return ok(model);
  if (model !== undefined) {
    if (model.startsWith(`${provider}/`)) return ok(model);
    if (model.includes("/") && listProviders().includes(model.split("/")[0]!))
      return usage(`--model ${model} names another provider than --provider ${provider}.`);
    return ok(`${provider}/${model}`);
  }
  const first = listModels(provider)[0];
  if (!first)
    return usage(
      `--provider ${provider} is not in the model catalog (known: ${listProviders().join(", ")}). ` +
        "For a custom provider from config use --model <provider>/<id>.",
    );
  return ok(`${first.provider}/${first.id}`);
}

function sessionChoice(flag: SessionFlag): { choice: SessionChoice; forkAfterOpen: boolean } {
  switch (flag.kind) {
    case "new":
      return { choice: { mode: "new" }, forkAfterOpen: false };
    case "ephemeral":
      return { choice: { mode: "ephemeral" }, forkAfterOpen: false };
    case "continue":
      return { choice: { mode: "continue" }, forkAfterOpen: flag.fork };
    case "resume":
      // No id: the interactive picker chooses; until then nothing is opened on its behalf.
      if (flag.id === undefined) return { choice: { mode: "new" }, forkAfterOpen: false };
      return {
        choice: flag.fork ? { mode: "fork", session: flag.id } : { mode: "resume", session: flag.id },
        forkAfterOpen: false,
      };
  }
}

export function composeOptions(flags: CliFlags, base: string = process.cwd()): Result<Composed, UsageError> {
  const cwd = resolveCwd(flags.cwd, base);
  if (cwd.isErr()) return err(cwd.error);
  const model = modelRef(flags.model, flags.provider);
  if (model.isErr()) return err(model.error);
  const { choice, forkAfterOpen } = sessionChoice(flags.session);
  const options: CodingAgentOptions = {
    cwd: cwd.value,
    session: choice,
    extensions: flags.noExtensions ? [] : officialExtensions(),
    discoverExtensions: !flags.noExtensions,
    // -e paths are relative to where keel was started, like any other path argument.
    extensionPaths: flags.extensions.map((p) => resolve(base, p)),
    ...(model.value !== undefined ? { model: model.value } : {}),
    ...(flags.permissionMode !== undefined ? { permissionMode: flags.permissionMode } : {}),
    ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
    ...(flags.appendSystemPrompt !== undefined ? { appendSystemPrompt: flags.appendSystemPrompt } : {}),
  };
  return ok({ options, forkAfterOpen });
}
