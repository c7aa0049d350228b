// Creation's command-file step: Claude Code's and Keel's command files (user, and the project's
// when trusted) become specs of the one registry — last, so every other command keeps its name.
import { commandRoots, discoverCommandFiles } from "../../commands/files/discover.js";
import { registerCommandFiles } from "../../commands/files/register.js";
import type { KeelConfig } from "../../config/schema.js";
import type { KernelAgent } from "../coding-agent.js";

export function registerSessionCommandFiles(
  kernel: KernelAgent,
  where: { projectRoot: string; trusted: boolean; home: string; userHome: string; config: KeelConfig },
): void {
  const { projectRoot, trusted, home, userHome, config } = where;
  registerCommandFiles(
    {
      commands: kernel.commands,
      runShell: (command, allow, signal) => kernel.runCommandShell(command, allow, signal),
      report: (level, message) => kernel.report(level, message),
    },
    discoverCommandFiles(
      commandRoots({
        projectRoot,
        trusted,
        keelHome: home,
        userHome,
        claudeUserFiles: config.claude?.userFiles !== false,
      }),
      projectRoot,
    ),
  );
}
