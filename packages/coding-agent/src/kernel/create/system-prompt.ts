// Creation's system-prompt step: the context files (AGENTS.md, CLAUDE.md …) read once, and the
// prompt built from them, the tools and the extensions' text — the same for child agents.
import type { Diagnostic } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import type { ExtensionHost } from "../../host/extension-host.js";
import type { PermissionRuleEntry } from "../../permissions/types.js";
import type { ContextFile } from "../../prompt/context-files.js";
import { buildSystemPrompt } from "../../prompt/system-prompt.js";
import { sessionContextFiles } from "../session-context.js";
import type { CodingAgentOptions } from "../types.js";

/** Builds the system prompt for a set of tools (and a child agent's instructions). */
export type PromptFor = (toolNames: string[], instructions?: string) => string;

export async function sessionSystemPrompt(input: {
  options: CodingAgentOptions;
  cwd: string;
  home: string;
  userHome: string;
  claudeHome: string | undefined;
  projectRoot: string;
  trusted: boolean;
  rules: readonly PermissionRuleEntry[];
  session: Session;
  host: ExtensionHost;
  report: (message: string, level: Diagnostic["level"]) => void;
}): Promise<{ promptFor: PromptFor; contextFiles: ContextFile[] }> {
  const { options, cwd, home, userHome, claudeHome, projectRoot, trusted, rules, session, host } = input;
  const contextFiles = await sessionContextFiles({
    cwd,
    home,
    ...(claudeHome ? { claudeHome } : {}),
    userHome,
    projectRoot,
    trusted,
    rules,
    report: input.report,
  });
  // Fixed when the session began and journaled with it: a resume on another day sends the same
  // prompt, so the cached prefix holds (the model hears of the new date by a notice instead).
  const { date, platform } = session.environment;
  const promptFor: PromptFor = (toolNames, instructions) =>
    buildSystemPrompt({
      cwd,
      date,
      platform,
      toolNames,
      contextFiles,
      extensionText: host.systemPromptText(),
      ...(options.appendSystemPrompt ? { append: options.appendSystemPrompt } : {}),
      ...(options.systemPrompt ? { base: options.systemPrompt } : {}),
      ...(instructions ? { instructions } : {}),
    });
  return { promptFor, contextFiles };
}
