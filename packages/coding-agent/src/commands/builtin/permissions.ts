// /permissions: the mode and every rule with its file; `allow|ask|deny <rule> [scope]` adds one,
// `remove …` takes one out of where it was found (a host may offer a dialog instead).
import type { PermissionRuleScope } from "../../kernel/types.js";
import { permissionsText } from "../../kernel/usage-text.js";
import type { BuiltinCommand } from "./spec.js";
import { outcome } from "./spec.js";

const SCOPES: Record<string, PermissionRuleScope> = {
  "--user": "user",
  "--project": "project",
  "--local": "projectLocal",
  "--session": "session",
};

const USAGE =
  "Usage: /permissions [allow|ask|deny <rule> [--user|--project|--local|--session]] or /permissions remove <allow|ask|deny> <rule> [scope]";

export const permissionsCommand: BuiltinCommand = (agent) => ({
  name: "permissions",
  description: "Show the permission mode and rules (with their files); add or remove a rule",
  argumentHint: "[allow|ask|deny <rule> [--user|--project|--local|--session] | remove …]",
  interactive: "permissions-dialog",
  run: async (args) => {
    if (!args) return { message: permissionsText(agent.permissionMode(), agent.permissionRules()) };
    const words = args.split(/\s+/);
    const remove = words[0] === "remove";
    if (remove) words.shift();
    const behavior = words.shift();
    if (behavior !== "allow" && behavior !== "ask" && behavior !== "deny") return { error: USAGE };
    const flag = words.at(-1);
    const scope = flag !== undefined && flag in SCOPES ? SCOPES[words.pop()!]! : undefined;
    const rule = words.join(" ").trim();
    if (!rule) return { error: USAGE };
    // Removing: from where it was found. Adding: personal to this project by default.
    const found = agent.permissionRules().find((r) => r.rule === rule && r.behavior === behavior);
    if (remove && !scope && found?.source.startsWith("claude"))
      return {
        error: `The ${behavior} rule ${rule} comes from Claude Code's settings (${found.source === "claudeUser" ? "~/.claude/settings.json" : found.source === "claudeProject" ? ".claude/settings.json" : ".claude/settings.local.json"}); Keel does not edit that file: remove it there, or add a deny rule.`,
      };
    const editable = (source: string | undefined): source is PermissionRuleScope =>
      source === "user" || source === "project" || source === "projectLocal" || source === "session";
    const where: PermissionRuleScope | undefined = remove
      ? (scope ?? (found && editable(found.source) ? found.source : undefined))
      : (scope ?? "projectLocal");
    if (!where) return { error: `There is no ${behavior} rule ${rule} to remove.` };
    return outcome(
      agent
        .editPermissionRule({ rule, behavior, scope: where, ...(remove ? { remove: true } : {}) })
        .map((info) => ({
          message: `${remove ? "Removed" : "Added"} ${behavior} ${info.rule} ${remove ? "from" : "to"} ${info.file ?? "this session"}.`,
        })),
    );
  },
});
