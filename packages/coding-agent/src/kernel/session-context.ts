// The context files of a session's system prompt, as the kernel admits them: the loader
// (prompt/context-files.ts) given the project's trust, an enclosing project's trust, and the
// Read deny rules of the loaded configuration.
import { homedir } from "node:os";
import { decide } from "../permissions/decide.js";
import { RULE_WORD } from "../permissions/rules.js";
import type { PermissionRuleEntry } from "../permissions/types.js";
import { type ContextFile, type ContextFileOptions, loadContextFiles } from "../prompt/context-files.js";
import { trustStatus } from "../trust/store.js";
import { ONE_READ } from "./permission.js";

/** The loader's own options (`claudeHome`: unless config `claude.userFiles` is false), with the config's rules for `denied`. */
export function sessionContextFiles(
  options: Pick<
    ContextFileOptions,
    "cwd" | "home" | "claudeHome" | "userHome" | "projectRoot" | "trusted"
  > & {
    rules: readonly PermissionRuleEntry[];
    report: NonNullable<ContextFileOptions["report"]>;
  },
): Promise<ContextFile[]> {
  const { cwd, home, projectRoot, trusted, rules, report } = options;
  return loadContextFiles({
    cwd,
    home,
    ...(options.claudeHome ? { claudeHome: options.claudeHome } : {}),
    ...(options.userHome ? { userHome: options.userHome } : {}),
    projectRoot,
    trusted,
    trustAbove: (outer, dir) => trustStatus(outer, { home, cwd: dir }).unwrapOr("untrusted"),
    // Only rules deny in this mode, which is the question: does a Read deny rule cover it?
    denied: async (path) => {
      const decision = await decide({
        tool: RULE_WORD.read,
        args: { path },
        declaration: ONE_READ,
        mode: "bypassPermissions",
        rules,
        workspace: projectRoot,
        userHome: options.userHome ?? homedir(),
        keelHome: home,
      });
      return decision.behavior === "deny" ? decision.reason : undefined;
    },
    report,
  });
}
