// /permissions in the TUI: the mode and every rule in force with the file it came from; choose a
// rule to remove it, or add one and say where it is kept.
import { homedir } from "node:os";
import { join } from "node:path";
import type { PermissionRuleScope } from "@keel/coding-agent";
import type { Controller } from "./controller.js";

/** The user config file as the user would write it: under `~` when it is there (KEEL_HOME may move it). */
function userConfigFile(keelHome: string): string {
  const file = join(keelHome, "config.json");
  const home = homedir();
  return file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

function scopes(keelHome: string): { label: string; scope: PermissionRuleScope }[] {
  return [
    { label: "This project, just you (.keel/config.local.json)", scope: "projectLocal" },
    { label: "This project, everyone (.keel/config.json)", scope: "project" },
    { label: `You, in every project (${userConfigFile(keelHome)})`, scope: "user" },
    { label: "This session only", scope: "session" },
  ];
}

async function addRule(c: Controller): Promise<void> {
  const agent = c.agent!;
  const typed = await c.ask("Add a rule: allow, ask or deny, then the rule", "allow Bash(npm test:*)");
  if (!typed?.trim()) return;
  const [behavior, ...rest] = typed.trim().split(/\s+/);
  const rule = rest.join(" ");
  if ((behavior !== "allow" && behavior !== "ask" && behavior !== "deny") || !rule)
    return c.store.note(
      "error",
      'Write the behaviour, then the rule: e.g. "allow Bash(npm test:*)" or "deny Read(.env)".',
    );
  const choices = scopes(c.home);
  const where = await c.pick(
    `Keep ${behavior} ${rule} where?`,
    choices.map((s) => ({ label: s.label })),
  );
  if (where === undefined) return;
  const added = agent.editPermissionRule({ rule, behavior, scope: choices[where]!.scope });
  if (added.isErr()) return c.store.note("error", added.error.message);
  c.store.note("success", `Added ${behavior} ${rule} to ${added.value.file ?? "this session"}.`);
}

export async function permissionsDialog(c: Controller): Promise<void> {
  const agent = c.agent!;
  const rules = agent.permissionRules();
  const index = await c.pick(
    `Permissions · mode ${agent.permissionMode()} (Shift+Tab cycles) · choose a rule to remove it`,
    [
      { label: "+ Add a rule…" },
      ...rules.map((r) => ({
        label: `${r.behavior.padEnd(5)} ${r.rule}`,
        detail: r.file ?? (r.source === "session" ? "this session" : r.source),
      })),
    ],
  );
  if (index === undefined) return;
  if (index === 0) return addRule(c);
  const rule = rules[index - 1]!;
  if (rule.source === "cli")
    return c.store.note("info", `${rule.rule} comes from the command line; it stays for this run.`);
  const yes = await c.store.ask<boolean | undefined>((answer) => ({
    kind: "confirm",
    title: `Remove ${rule.behavior} ${rule.rule}?`,
    message: rule.file ? `It is taken out of ${rule.file}.` : "It is taken out of this session.",
    selected: 0,
    answer,
  }));
  if (!yes) return;
  const removed = agent.editPermissionRule({
    rule: rule.rule,
    behavior: rule.behavior,
    scope: rule.source as PermissionRuleScope,
    remove: true,
  });
  if (removed.isErr()) return c.store.note("error", removed.error.message);
  c.store.note("success", `Removed ${rule.behavior} ${rule.rule}${rule.file ? ` from ${rule.file}` : ""}.`);
}
