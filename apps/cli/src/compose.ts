// Composition: parsed flags → CodingAgentOptions. The official extensions are on by default;
// everything else (config, trust, extension loading, model choice) is the kernel's job.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { defaultModelFor, listProviders, modelRef } from "@keel/ai";
import {
  type CodingAgentOptions,
  defaultSessionDir,
  type ExtensionModule,
  latestSessionFile,
  resolveKeelHome,
  type SessionChoice,
} from "@keel/coding-agent";
import { err, ok, type Result } from "neverthrow";
import type { CliFlags, SessionFlag, UsageError } from "./args.js";
import { mcpFlags, settingsFlag } from "./claude-flags.js";
import { officialExtensions } from "./official.js";

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
 * `--provider p` alone picks p's default model (the catalog names the vendor's recommended
 * agentic-coding model); with `--model id` it qualifies a bare id as `p/id`.
 */
function qualifiedModel(
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
  const first = defaultModelFor(provider);
  if (!first)
    return usage(
      `--provider ${provider} is not in the model catalog (known: ${listProviders().join(", ")}). ` +
        "For a custom provider from config use --model <provider>/<id>.",
    );
  return ok(modelRef(first));
}

/**
 * `--continue --fork`: the kernel forks a session named by id or path, and "continue" has no
 * fork variant, so the CLI asks the kernel for the newest session file of the directory.
 */
function latestSession(cwd: string): Result<string, UsageError> {
  const latest = latestSessionFile(defaultSessionDir(resolveKeelHome(), cwd));
  if (latest.isErr()) return usage(latest.error.message);
  return latest.value ? ok(latest.value) : usage(`There is no session to fork in ${cwd} yet.`);
}

function sessionChoice(flag: SessionFlag, cwd: string): Result<SessionChoice, UsageError> {
  switch (flag.kind) {
    case "new":
      return ok({ mode: "new" });
    case "ephemeral":
      return ok({ mode: "ephemeral" });
    case "inspect":
      return ok(
        flag.id === undefined
          ? { mode: "continue", readOnly: true }
          : { mode: "resume", session: flag.id, readOnly: true },
      );
    case "continue":
      if (!flag.fork) return ok({ mode: "continue" });
      return latestSession(cwd).map((session) => ({ mode: "fork" as const, session }));
    case "resume":
      // No id: the interactive picker chooses; until then nothing is opened on its behalf.
      if (flag.id === undefined) return ok({ mode: "new" });
      return ok(flag.fork ? { mode: "fork", session: flag.id } : { mode: "resume", session: flag.id });
  }
}

/**
 * Test-only: `KEEL_TEST_FORCE_PARSER_ALLOW=1` in keel's own environment forces the shell parser's
 * verdicts to "allow", so an end-to-end test can show what the OS sandbox alone holds. Only
 * whoever starts keel sets its environment: no project file or config can; keel says so on
 * every start while it is on.
 */
export const FORCE_PARSER_ALLOW = "KEEL_TEST_FORCE_PARSER_ALLOW";

/**
 * The official extensions are on unless --no-extensions; `official` says where they load from
 * (the keel bin passes its bundles, see bundled-extensions.ts).
 */
export function composeOptions(
  flags: CliFlags,
  base: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
  official: () => ExtensionModule[] = officialExtensions,
): Result<CodingAgentOptions, UsageError> {
  const cwd = resolveCwd(flags.cwd, base);
  if (cwd.isErr()) return err(cwd.error);
  const model = qualifiedModel(flags.model, flags.provider);
  if (model.isErr()) return err(model.error);
  const session = sessionChoice(flags.session, cwd.value);
  if (session.isErr()) return err(session.error);
  // Files named by --settings and --mcp-config are relative to where keel was started.
  const settings = settingsFlag(flags.settings, base);
  if (settings.isErr()) return err(settings.error);
  const mcp = mcpFlags(flags.mcpConfigs, flags.strictMcpConfig, base);
  if (mcp.isErr()) return err(mcp.error);
  return ok({
    cwd: cwd.value,
    session: session.value,
    extensions: flags.noExtensions ? [] : official(),
    discoverExtensions: !flags.noExtensions,
    // -e paths are relative to where keel was started, like any other path argument.
    extensionPaths: flags.extensions.map((p) => resolve(base, p)),
    ...(model.value !== undefined ? { model: model.value } : {}),
    ...(flags.permissionMode !== undefined ? { permissionMode: flags.permissionMode } : {}),
    ...(flags.thinking !== undefined ? { thinking: flags.thinking } : {}),
    ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
    ...(flags.appendSystemPrompt !== undefined ? { appendSystemPrompt: flags.appendSystemPrompt } : {}),
    ...(flags.systemPrompt !== undefined ? { systemPrompt: flags.systemPrompt } : {}),
    ...(flags.allowedTools.length + flags.disallowedTools.length > 0
      ? { rules: { allow: flags.allowedTools, deny: flags.disallowedTools } }
      : {}),
    // Relative to where keel was started, like -e.
    ...(flags.addDirs.length > 0
      ? { additionalDirectories: flags.addDirs.map((d) => resolve(base, d)) }
      : {}),
    ...(settings.value ? { settings: settings.value } : {}),
    ...(mcp.value ? { extensionConfig: mcp.value } : {}),
    ...(env[FORCE_PARSER_ALLOW] === "1" ? { testing: { forceParserAllow: true } } : {}),
  });
}
