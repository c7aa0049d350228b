// The TUI's presentations of commands that declare one (`interactive` on their spec): pickers,
// dialogs and the transcript's own way of saying a result. A presenter gets the arguments and the
// command's headless run, which it may fall back to; the TUI knows presentations, never names.
import type { CodingAgentError, CommandOutcome, FileChanges, RestoreChoice } from "@keel/coding-agent";
import type { Result } from "neverthrow";
import { formatCost, formatStamp, oneLine } from "../format.js";
import type { Controller } from "./controller.js";
import { editorWith } from "./editor.js";
import { KEY_HELP } from "./keys.js";
import { permissionsDialog } from "./permissions-dialog.js";

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
      label: `${s.parentSessionId ? `↳ fork of ${s.parentSessionId.slice(0, 8)}: ` : ""}${oneLine(s.name ?? s.firstPrompt ?? "(no prompt yet)", 60)}`,
      detail: `${formatStamp(s.lastActivity)} (${ago(s.lastActivity)}) · ${s.messageCount} messages · ${formatCost(s.usage.cost.total + s.childUsage.cost.total)} · ${s.id.slice(0, 8)}`,
    })),
  );
  return index === undefined ? undefined : sessions[index]!.path;
}

/** What to undo when the files changed too; undefined: cancelled. */
async function restoreChoice(
  c: Controller,
  what: string,
  changes: FileChanges,
): Promise<RestoreChoice | undefined> {
  if (changes.files.length === 0 && changes.unrestorable.length === 0) return "conversation";
  const files = changes.files.map((f) => `${f.action === "delete" ? "remove" : "restore"} ${f.path}`);
  const notes = [
    ...(changes.unrestorable.length > 0
      ? [
          `not kept, left as they are: ${changes.unrestorable.map((u) => `${u.path} (${u.reason})`).join(", ")}`,
        ]
      : []),
    ...(changes.notRestored.length > 0
      ? [
          `${changes.notRestored.length} ${[...new Set(changes.notRestored)].join("/")} call${changes.notRestored.length === 1 ? "" : "s"} ran after that point: what ${changes.notRestored.length === 1 ? "it" : "they"} changed is not undone`,
        ]
      : []),
  ];
  const detail = [files.join(", "), ...notes].filter(Boolean).join(" · ");
  const choices: { label: string; detail?: string; value: RestoreChoice }[] = [
    { label: `${what}: conversation and code`, detail, value: "both" },
    { label: `${what}: conversation only (files stay as they are)`, value: "conversation" },
    { label: "Code only (the conversation stays)", detail, value: "code" },
  ];
  const index = await c.pick(
    `Keel changed ${changes.files.length} file(s) since then. Restore which?`,
    choices,
  );
  return index === undefined ? undefined : choices[index]!.value;
}

function reportFiles(
  c: Controller,
  files: FileChanges & { failed: { path: string; reason: string }[] },
): void {
  if (files.files.length > 0)
    c.store.note(
      "success",
      `Restored ${files.files.map((f) => (f.action === "delete" ? `${f.path} (removed)` : f.path)).join(", ")}.`,
    );
  for (const f of files.failed) c.store.note("error", `Could not restore ${f.path}: ${f.reason}`);
  if (files.notRestored.length > 0)
    c.store.note("warning", "Changes made by shell commands (Bash) are not undone.");
}

async function tree(c: Controller, args: string): Promise<void> {
  const agent = c.agent!;
  const all = args === "all";
  const nodes = agent.tree().filter((n) => all || !n.internal);
  if (nodes.length === 0) return c.store.note("info", "The session is empty.");
  const head = Math.max(
    0,
    nodes.findIndex((n) => n.isHead || (n.onCurrentBranch && !nodes.some((m) => m.isHead))),
  );
  const index = await c.pick(
    all
      ? "Continue from which entry? (every journal entry)"
      : "Continue from which entry? (/tree all: every journal entry)",
    nodes.map((n) => ({
      label: `${n.isHead ? "▶" : n.onCurrentBranch ? "│" : " "} ${oneLine(n.text, 80)}`,
      detail: `${formatStamp(n.timestamp).slice(11)} · ${n.id.slice(0, 8)}${n.label ? ` [${n.label}]` : ""}`,
    })),
    head,
  );
  if (index === undefined) return;
  const node = nodes[index]!;
  const changes = agent.fileChanges({ entryId: node.id });
  const restore = changes.isOk() ? await restoreChoice(c, "Move", changes.value) : "conversation";
  if (!restore) return;
  const moved = await agent.branch(node.id, { restore });
  if (moved.isErr()) return c.store.note("error", moved.error.message);
  if (moved.value.files) reportFiles(c, moved.value.files);
  if (restore !== "code")
    c.store.note("success", `Continuing from ${node.id.slice(0, 8)}: ${oneLine(node.text, 60)}`);
}

async function rewind(c: Controller, args: string): Promise<void> {
  const count = args ? Number.parseInt(args, 10) : 1;
  if (!Number.isInteger(count) || count < 1) return c.store.note("error", "Usage: /rewind [count ≥ 1]");
  const agent = c.agent!;
  const changes = agent.fileChanges({ rewind: count });
  if (changes.isErr()) return c.store.note("error", changes.error.message);
  const restore = await restoreChoice(c, `Rewind ${count} prompt${count > 1 ? "s" : ""}`, changes.value);
  if (!restore) return;
  const rewound = await agent.rewind(count, { restore });
  if (rewound.isErr()) return c.store.note("error", rewound.error.message);
  if (rewound.value.files) reportFiles(c, rewound.value.files);
  else if (changes.value.notRestored.length > 0)
    c.store.note("warning", "Changes made by shell commands (Bash) are not undone.");
  if (restore === "code") return;
  c.store.editor = editorWith(rewound.value.prompt ?? "");
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
  const trusted = await agent.trust();
  if (trusted.isErr()) return c.store.note("error", `Could not trust the project: ${trusted.error.message}`);
  const file = c.agent?.sessionFile;
  c.store.note("success", `Trusted ${trusted.value.projectRoot}. Reloading with its config and extensions…`);
  await c.swap(file ? { mode: "resume", session: file } : { mode: "new" });
}

/** /model without an argument: a picker; models whose provider has no key say what to set. */
async function model(c: Controller): Promise<void> {
  const agent = c.agent!;
  const current = c.kernel.modelRef(agent.model());
  const models = agent.models().filter((m) => !m.legacy || m.ref === current);
  const index = await c.pick(
    `Model (now ${current})`,
    models.map((m) => ({
      label: `${m.ref === current ? "● " : ""}${m.ref}`,
      detail: m.ready ? m.name : `${m.name} · no key: set ${m.keyEnv}`,
    })),
    Math.max(
      0,
      models.findIndex((m) => m.ref === current),
    ),
  );
  if (index === undefined) return;
  const set = agent.setModel(models[index]!.ref);
  c.refresh();
  if (set.isErr()) return c.store.note("error", set.error.message);
  c.store.note("success", `Model: ${c.kernel.modelRef(set.value)}`);
}

/** /thinking without an argument: a picker of the levels this model takes, its default first. */
async function thinking(c: Controller): Promise<void> {
  const agent = c.agent!;
  const now = agent.thinking();
  // A level the model would remap is not offered; one set earlier (another model's) still shows.
  const levels = [undefined, ...now.levels];
  if (now.level !== undefined && !levels.includes(now.level)) levels.push(now.level);
  const index = await c.pick(
    `Thinking for ${agent.model().id} (now ${now.level ?? "default"}: ${now.effort})`,
    levels.map((l) => ({
      label: `${l === now.level ? "● " : ""}${l ?? "default"}`,
      ...(l === undefined
        ? { detail: now.levels.length > 0 ? "the model's own" : `${agent.model().id} does not reason` }
        : l === now.level && now.note
          ? { detail: `not taken as it is: ${now.effort} is used` }
          : {}),
    })),
    Math.max(0, levels.indexOf(now.level)),
  );
  if (index === undefined) return;
  const set = agent.setThinking(levels[index]);
  c.refresh();
  if (set.isErr()) return c.store.note("error", set.error.message);
  c.store.note(
    "success",
    `Thinking: ${set.value.level ?? "default"} (${set.value.effort})${set.value.note ? `. ${set.value.note}` : ""}`,
  );
}

/** A command's headless run, as the registry carries it out. */
export type HeadlessRun = () => Promise<Result<CommandOutcome, CodingAgentError>>;

/** Shows what a command gave (its message, or its error) and sends the prompt it made, if any. */
export async function showOutcome(
  c: Controller,
  result: Result<CommandOutcome, CodingAgentError>,
  options: { quiet?: boolean; suffix?: string } = {},
): Promise<void> {
  c.refresh();
  if (result.isErr()) return c.store.note("error", result.error.message);
  const { message, prompt, promptOptions } = result.value;
  if (message && !options.quiet)
    c.store.note("info", options.suffix ? `${message}\n\n${options.suffix}` : message);
  else c.store.publish();
  if (prompt) await c.run(prompt, promptOptions);
}

type Presenter = (c: Controller, args: string, headless: HeadlessRun) => Promise<void>;

/** Presentation name (a spec's `interactive`) → how the TUI offers it. */
export const PRESENTERS: Readonly<Record<string, Presenter>> = {
  help: async (c, _args, headless) => showOutcome(c, await headless(), { suffix: KEY_HELP }),
  // The compaction events already said how it went; a conversation too short to shrink is no failure.
  compact: async (c, _args, headless) => {
    const result = await headless();
    if (result.isErr() && result.error.type === "nothing_to_compact") {
      c.refresh();
      return c.store.note("info", result.error.message);
    }
    return showOutcome(c, result, { quiet: true });
  },
  "model-picker": async (c, args, headless) => (args ? showOutcome(c, await headless()) : model(c)),
  "thinking-picker": async (c, args, headless) => (args ? showOutcome(c, await headless()) : thinking(c)),
  "permissions-dialog": async (c, args, headless) =>
    args ? showOutcome(c, await headless()) : permissionsDialog(c),
  "tree-picker": async (c, args, headless) =>
    !args || args === "all" ? tree(c, args) : showOutcome(c, await headless()),
  "rewind-restore": (c, args) => rewind(c, args),
  "trust-confirm": (c, args) => trust(c, args),
};
