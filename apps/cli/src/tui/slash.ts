// Slash commands: the TUI carries out the ones that need a screen or the process (/quit, /new,
// /resume, /tree picker, /rewind into the prompt, /trust); every other one goes to the kernel.
import { parseSlash } from "../slash-command.js";
import type { Controller } from "./controller.js";
import { editorWith } from "./editor.js";
import { oneLine } from "./format.js";
import { KEY_HELP } from "./keys.js";

function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** Lets the user choose one of this project's sessions; undefined when cancelled or none. */
export async function pickSession(c: Controller): Promise<string | undefined> {
  const listed = c.kernel.listSessions(c.sessionDir);
  if (listed.isErr()) {
    c.store.note("error", `Could not list sessions: ${listed.error.message}`);
    return undefined;
  }
  // A session without a prompt has nothing to go back to.
  const sessions = listed.value.sessions.filter((s) => s.id !== c.agent?.sessionId && s.firstPrompt !== null);
  if (sessions.length === 0) {
    c.store.note("info", "No other sessions in this project.");
    return undefined;
  }
  const index = await c.pick(
    "Resume which session?",
    sessions.map((s) => ({
      label: oneLine(s.name ?? s.firstPrompt ?? "(no prompt yet)", 70),
      detail: `${ago(s.lastActivity)} · ${s.entryCount} entries · ${s.id.slice(0, 8)}`,
    })),
  );
  return index === undefined ? undefined : sessions[index]!.path;
}

async function tree(c: Controller): Promise<void> {
  const agent = c.agent!;
  const nodes = agent.tree();
  if (nodes.length === 0) return c.store.note("info", "The session is empty.");
  const head = Math.max(
    0,
    nodes.findIndex((n) => n.isHead),
  );
  const index = await c.pick(
    "Continue from which entry?",
    nodes.map((n) => ({
      label: `${n.isHead ? "▶" : n.onCurrentBranch ? "│" : " "} ${oneLine(n.text, 80)}`,
      detail: `${n.id.slice(0, 8)}${n.label ? ` [${n.label}]` : ""}`,
    })),
    head,
  );
  if (index === undefined) return;
  const node = nodes[index]!;
  const moved = await agent.branch(node.id);
  if (moved.isErr()) return c.store.note("error", moved.error.message);
  c.store.note("success", `Continuing from ${node.id.slice(0, 8)}: ${oneLine(node.text, 60)}`);
}

async function rewind(c: Controller, args: string): Promise<void> {
  const count = args ? Number.parseInt(args, 10) : 1;
  if (!Number.isInteger(count) || count < 1) return c.store.note("error", "Usage: /rewind [count ≥ 1]");
  const rewound = await c.agent!.rewind(count);
  if (rewound.isErr()) return c.store.note("error", rewound.error.message);
  const prompt = rewound.value.prompt ?? "";
  c.store.editor = editorWith(prompt);
  c.store.note("success", `Rewound ${count} prompt${count > 1 ? "s" : ""}; the prompt is back in the input.`);
}

async function trust(c: Controller, args: string): Promise<void> {
  const agent = c.agent!;
  if (args !== "" && args !== "yes")
    return c.store.note("error", "Usage: /trust (show, then confirm) or /trust yes");
  // What the project could do is shown before it is trusted, and trusting it is a separate yes.
  c.store.note("info", c.kernel.formatTrustPreview(await agent.trustPreview()));
  if (args !== "yes") {
    const yes = await c.store.ask<boolean | undefined>((answer) => ({
      kind: "confirm",
      title: "Trust this project as it is now?",
      message: "Its config, hooks, extensions, MCP servers and context files load from then on.",
      selected: 1,
      answer,
    }));
    if (yes !== true) return c.store.note("info", "Nothing was trusted.");
  }
  const trusted = agent.trust();
  if (trusted.isErr()) return c.store.note("error", `Could not trust the project: ${trusted.error.message}`);
  const file = c.agent?.sessionFile;
  c.store.note("success", `Trusted ${trusted.value.projectRoot}. Reloading with its config and extensions…`);
  await c.swap(file ? { mode: "resume", session: file } : { mode: "new" });
}

export async function runSlash(c: Controller, text: string): Promise<void> {
  const parsed = parseSlash(text);
  const agent = c.agent;
  if (!parsed || !agent) return c.store.note("error", `Not a command: ${oneLine(text, 40)}`);
  const { name, args } = parsed;
  c.store.transcript.note("dim", `› ${oneLine(text, 100)}`);
  switch (name) {
    case "quit":
    case "exit":
      return c.exit(0);
    case "new":
      if (await c.swap({ mode: "new" })) c.store.note("success", "Started a new session.");
      return;
    case "resume": {
      const path = args || (await pickSession(c));
      if (path) await c.swap({ mode: "resume", session: path });
      return;
    }
    case "tree":
      if (!args) return tree(c);
      break;
    case "rewind":
      return rewind(c, args);
    case "trust":
      return trust(c, args);
    default:
      break;
  }
  const result = await agent.runCommand(name, args);
  c.refresh();
  if (result.isErr()) return c.store.note("error", result.error.message);
  const message =
    name === "help" && result.value.message ? `${result.value.message}\n\n${KEY_HELP}` : result.value.message;
  if (message) c.store.note("info", message);
  else c.store.publish();
  if (result.value.prompt) await c.run(result.value.prompt);
}
