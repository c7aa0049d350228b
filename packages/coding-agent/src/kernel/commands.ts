// Built-in slash commands the kernel itself can carry out. Hosts (the CLI) handle the ones that
// need a screen or a process (/new, /clear, /quit, /resume pickers) and pass the rest here.
import { err, ok, type Result } from "neverthrow";
import { INIT_PROMPT } from "./init-prompt.js";
import { parseThinkingLevel } from "./thinking.js";
import { formatTrustPreview } from "./trust-preview.js";
import type { CodingAgent, CodingAgentError, CommandInfo, PermissionRuleScope } from "./types.js";
import { formatUsage, permissionsText } from "./usage-text.js";

export const BUILTIN_COMMANDS: CommandInfo[] = [
  { name: "help", description: "List commands", source: "builtin" },
  {
    name: "model",
    description: "Show or switch the model",
    argumentHint: "[provider/id]",
    source: "builtin",
  },
  {
    name: "thinking",
    description: "Show or set how hard the model thinks",
    argumentHint: "[off|low|medium|high|…|default]",
    source: "builtin",
  },
  {
    name: "permissions",
    description: "Show the permission mode and rules (with their files); add or remove a rule",
    argumentHint: "[allow|ask|deny <rule> [--user|--project|--local|--session] | remove …]",
    source: "builtin",
  },
  {
    name: "tree",
    description: "Show the session tree; continue from an entry",
    argumentHint: "[entry id]",
    source: "builtin",
  },
  {
    name: "rewind",
    description: "Undo the last prompt(s) and what followed",
    argumentHint: "[count]",
    source: "builtin",
  },
  { name: "fork", description: "Continue in a new session file from here", source: "builtin" },
  {
    name: "compact",
    description: "Summarize the history to free context",
    argumentHint: "[instructions]",
    source: "builtin",
  },
  { name: "cost", description: "Tokens and cost of this session, child agents included", source: "builtin" },
  { name: "init", description: "Look at the project and write an AGENTS.md for it", source: "builtin" },
  { name: "session", description: "Show session id, file, usage and context", source: "builtin" },
  {
    name: "trust",
    description: "Show what this project could do if trusted; /trust yes trusts it",
    argumentHint: "[yes]",
    source: "builtin",
  },
  { name: "new", description: "Start a new session", source: "builtin" },
  {
    name: "clear",
    description: "Start a new session (the conversation so far stays saved)",
    source: "builtin",
  },
  { name: "quit", description: "Exit", source: "builtin" },
];

export const BUILTIN_COMMAND_NAMES = BUILTIN_COMMANDS.map((c) => c.name);

const SCOPES: Record<string, PermissionRuleScope> = {
  "--user": "user",
  "--project": "project",
  "--local": "projectLocal",
  "--session": "session",
};

const PERMISSIONS_USAGE =
  "Usage: /permissions [allow|ask|deny <rule> [--user|--project|--local|--session]] or /permissions remove <allow|ask|deny> <rule> [scope]";

function editRule(agent: CodingAgent, arg: string): Result<{ message: string }, CodingAgentError> {
  const words = arg.split(/\s+/);
  const remove = words[0] === "remove";
  if (remove) words.shift();
  const behavior = words.shift();
  if (behavior !== "allow" && behavior !== "ask" && behavior !== "deny")
    return err({ type: "config", message: PERMISSIONS_USAGE });
  const flag = words.at(-1);
  const scope = flag !== undefined && flag in SCOPES ? SCOPES[words.pop()!]! : undefined;
  const rule = words.join(" ").trim();
  if (!rule) return err({ type: "config", message: PERMISSIONS_USAGE });
  // Removing: from where it was found. Adding: personal to this project by default.
  const found = agent.permissionRules().find((r) => r.rule === rule && r.behavior === behavior);
  if (remove && !scope && found?.source.startsWith("claude"))
    return err({
      type: "config",
      message: `The ${behavior} rule ${rule} comes from Claude Code's settings (${found.source === "claudeUser" ? "~/.claude/settings.json" : found.source === "claudeProject" ? ".claude/settings.json" : ".claude/settings.local.json"}); Keel does not edit that file: remove it there, or add a deny rule.`,
    });
  const where: PermissionRuleScope | undefined = remove
    ? (scope ??
      (found &&
      (found.source === "user" ||
        found.source === "project" ||
        found.source === "projectLocal" ||
        found.source === "session")
        ? found.source
        : undefined))
    : (scope ?? "projectLocal");
  if (!where) return err({ type: "config", message: `There is no ${behavior} rule ${rule} to remove.` });
  return agent
    .editPermissionRule({ rule, behavior, scope: where, ...(remove ? { remove: true } : {}) })
    .map((info) => ({
      message: `${remove ? "Removed" : "Added"} ${behavior} ${info.rule} ${remove ? "from" : "to"} ${info.file ?? "this session"}.`,
    }));
}

export async function runBuiltinCommand(
  agent: CodingAgent,
  name: string,
  args: string,
): Promise<Result<{ message?: string; prompt?: string }, CodingAgentError>> {
  const arg = args.trim();
  switch (name) {
    case "help":
      return ok({
        message: agent
          .commands()
          .map((c) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""} — ${c.description}`)
          .join("\n"),
      });
    case "model": {
      if (!arg) return ok({ message: `Model: ${agent.model().provider}/${agent.model().id}` });
      const set = agent.setModel(arg);
      return set.map((m) => ({ message: `Model: ${m.provider}/${m.id}` }));
    }
    case "thinking": {
      if (arg) {
        const level = arg === "default" ? undefined : parseThinkingLevel(arg);
        if (arg !== "default" && level === undefined)
          return err({
            type: "config",
            message: `Unknown thinking level "${arg}": off, minimal, low, medium, high, xhigh, max or default.`,
          });
        const set = agent.setThinking(level);
        if (set.isErr()) return err(set.error);
      }
      const t = agent.thinking();
      const asked = t.level === undefined ? "the model's default" : t.level;
      return ok({
        message: `Thinking: ${asked} (${t.effort} for ${agent.model().id})${t.note ? `. ${t.note}` : ""}`,
      });
    }
    case "permissions":
      if (arg) return editRule(agent, arg);
      return ok({ message: permissionsText(agent.permissionMode(), agent.permissionRules()) });
    case "cost":
      return ok({ message: formatUsage(agent.usageBreakdown()) });
    case "init":
      return ok({ prompt: INIT_PROMPT });
    case "tree": {
      if (arg) return (await agent.branch(arg)).map(() => ({ message: `Continuing from ${arg}.` }));
      const lines = agent
        .tree()
        .map(
          (n) =>
            `${n.isHead ? "▶" : n.onCurrentBranch ? "│" : " "} ${n.id} ${n.text}${n.label ? ` [${n.label}]` : ""}`,
        );
      return ok({ message: lines.join("\n") || "The session is empty." });
    }
    case "rewind": {
      const count = arg ? Number.parseInt(arg, 10) : 1;
      if (!Number.isInteger(count) || count < 1)
        return err({ type: "config", message: "Usage: /rewind [count ≥ 1]" });
      return (await agent.rewind(count)).map((r) => ({
        message: `Rewound ${count} prompt${count === 1 ? "" : "s"}.${r.prompt ? ` Last prompt: ${r.prompt}` : ""}`,
      }));
    }
    case "fork":
      return (await agent.fork()).map((f) => ({ message: `Forked into ${f.sessionFile}` }));
    case "compact":
      return (await agent.compact(arg || undefined)).map((c) => ({
        message: `Compacted: ~${c.tokensBefore} → ~${c.tokensAfter} tokens.`,
      }));
    case "session": {
      const usage = agent.usage();
      const ctx = agent.contextUsage();
      return ok({
        message: [
          `Session: ${agent.sessionFile ? agent.sessionId : "not saved (--no-session)"}`,
          `File: ${agent.sessionFile ?? "(none)"}`,
          `Model: ${agent.model().provider}/${agent.model().id}`,
          `Tokens: ${usage.input + usage.cacheRead + usage.cacheWrite} in, ${usage.output} out; cost $${usage.cost.total.toFixed(4)}`,
          `Context: ~${ctx.tokens} of ${ctx.contextWindow} (${ctx.percent}%)`,
        ].join("\n"),
      });
    }
    case "trust": {
      // Shown before anything is trusted; trusting takes an explicit "yes" (headless: keel -p "/trust yes").
      const preview = formatTrustPreview(await agent.trustPreview());
      if (arg === "")
        return ok({
          message: `${preview}\n\nNothing was trusted. To trust it as it is now: /trust yes (or keel -p "/trust yes").`,
        });
      if (arg !== "yes")
        return err({ type: "config", message: "Usage: /trust (show what it allows) or /trust yes" });
      return (await agent.trust()).map((t) => ({
        message: `${preview}\n\nTrusted ${t.projectRoot}. Its config, extensions and hooks load from the next session (/new).`,
      }));
    }
    default:
      return err({ type: "config", message: `Unknown command /${name}. Try /help.` });
  }
}
