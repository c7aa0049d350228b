// Built-in slash commands the kernel itself can carry out. Hosts (the CLI) handle the ones that
// need a screen or a process (/new, /quit, /resume pickers) and pass the rest here.
import { err, ok, type Result } from "neverthrow";
import { formatTrustPreview } from "./trust-preview.js";
import type { CodingAgent, CodingAgentError, CommandInfo } from "./types.js";

export const BUILTIN_COMMANDS: CommandInfo[] = [
  { name: "help", description: "List commands", source: "builtin" },
  {
    name: "model",
    description: "Show or switch the model",
    argumentHint: "[provider/id]",
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
  { name: "session", description: "Show session id, file, usage and context", source: "builtin" },
  {
    name: "trust",
    description: "Show what this project could do if trusted; /trust yes trusts it",
    argumentHint: "[yes]",
    source: "builtin",
  },
  { name: "new", description: "Start a new session", source: "builtin" },
  { name: "quit", description: "Exit", source: "builtin" },
];

export const BUILTIN_COMMAND_NAMES = BUILTIN_COMMANDS.map((c) => c.name);

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
        message: `Rewound ${count} prompt(s).${r.prompt ? ` Last prompt: ${r.prompt}` : ""}`,
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
          `Session: ${agent.sessionId}`,
          `File: ${agent.sessionFile ?? "(ephemeral)"}`,
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
      return agent.trust().map((t) => ({
        message: `${preview}\n\nTrusted ${t.projectRoot}. Its config, extensions and hooks load from the next session (/new).`,
      }));
    }
    default:
      return err({ type: "config", message: `Unknown command /${name}. Try /help.` });
  }
}
