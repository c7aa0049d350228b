// The real kernel against the mock model server: a temp git workspace and Keel home, parent and
// child requests told apart by the child's task, a recording UI, and journal readers.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type CodingAgent, type CodingAgentOptions, createCodingAgent } from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { fauxModel, type MockServer, type RecordedRequest, type ScenarioTurn } from "@keel/testing";

export type Json = Record<string, unknown>;

export interface Sandbox {
  workspace: string;
  home: string;
  write(path: string, text: string): string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "keel-subagent-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", workspace]);
  return {
    workspace,
    home,
    write(path, text) {
      const at = join(root, path);
      mkdirSync(dirname(at), { recursive: true });
      writeFileSync(at, text);
      return at;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Every request goes to the mock server, whatever base URL its model names: nothing leaves 127.0.0.1. */
export function loopbackFetch(server: MockServer): typeof fetch {
  return (input, init) => {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(raw);
    return fetch(`${server.url}${url.pathname}${url.search}`, init);
  };
}

export const CHILD = "TASK:";

const firstUserText = (r: RecordedRequest): string => {
  const first = (r.body.messages as Json[])[0];
  if (!first) return "";
  return typeof first.content === "string" ? first.content : String((first.content as Json[])[0]?.text ?? "");
};
/** A child's first message: its task, after its definition's instructions when it shares the parent's prefix. */
const taskText = (r: RecordedRequest): string =>
  firstUserText(r).replace(/^<agent-instructions>[\s\S]*?<\/agent-instructions>\n\n/, "");
export const isChild = (r: RecordedRequest) => taskText(r).startsWith(CHILD);
/** The task a child request belongs to: its first user message, its task only. */
export const taskOf = (r: RecordedRequest) => taskText(r);

/**
 * Parent turns in order; each child's turns from `child(task, n)` (n: its request count so far).
 * `arrivals` records when each request reached the server.
 */
export function routed(
  parent: ScenarioTurn[],
  child: (task: string, n: number, r: RecordedRequest) => ScenarioTurn,
) {
  let p = 0;
  const counts = new Map<string, number>();
  const arrivals = new Map<number, number>();
  return {
    arrivals,
    scenario: {
      turns: [],
      fallback: (r: RecordedRequest): ScenarioTurn => {
        arrivals.set(r.index, Date.now());
        if (isChild(r)) {
          const task = taskOf(r);
          const n = counts.get(task) ?? 0;
          counts.set(task, n + 1);
          return child(task, n, r);
        }
        return parent[p++] ?? { text: "parent done" };
      },
    },
  };
}

export interface UiLog {
  widgets: (string[] | undefined)[];
  notes: string[];
  ui: NonNullable<CodingAgentOptions["ui"]>;
}

/** A UI that records widgets and notifications; `interactive` offers confirm, like the TUI. */
export function recordingUi(interactive = true): UiLog {
  const widgets: UiLog["widgets"] = [];
  const notes: string[] = [];
  return {
    widgets,
    notes,
    ui: {
      setWidget: (key, lines) => {
        if (key === "agents") widgets.push(lines);
      },
      notify: (message) => notes.push(message),
      supports: {
        status: true,
        widget: true,
        notify: true,
        confirm: interactive,
        select: false,
        input: false,
      },
    },
  };
}

export async function startAgent(
  server: MockServer,
  box: Sandbox,
  extensions: ExtensionDefinition[],
  options: Partial<CodingAgentOptions> = {},
): Promise<CodingAgent> {
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: fauxModel("anthropic-messages", { baseUrl: server.anthropicBaseUrl }) as never,
    streamOptions: { apiKey: "test", retry: { baseDelayMs: 1 }, fetch: loopbackFetch(server) },
    permissionMode: "bypassPermissions",
    extensions,
    discoverExtensions: false,
    ...options,
  });
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return created.value;
}

/** A definition as the kernel's `extensions` option takes it (typed hooks are methods; see todo's harness). */
export function hosted(definition: object): ExtensionDefinition {
  return definition as ExtensionDefinition;
}

export function journal(file: string): Json[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
}

/** Tool results of a request (Anthropic wire), in order. */
export function toolResults(r: RecordedRequest): { text: string; isError: boolean }[] {
  const out: { text: string; isError: boolean }[] = [];
  for (const m of r.body.messages as Json[]) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as Json[]) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      const text =
        typeof content === "string" ? content : (content as Json[]).map((c) => String(c.text ?? "")).join("");
      out.push({ text, isError: block.is_error === true });
    }
  }
  return out;
}

/** Every user-side text of a request, in order. */
export function userTexts(r: RecordedRequest): string[] {
  const out: string[] = [];
  for (const m of r.body.messages as Json[]) {
    if (m.role !== "user") continue;
    if (typeof m.content === "string") out.push(m.content);
    else for (const b of m.content as Json[]) if (b.type === "text") out.push(String(b.text));
  }
  return out;
}

export const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as Json[]).map((t) => String(t.name));

export async function until(check: () => boolean, what: string, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

export const spawn = (args: Json) => ({ name: "SpawnAgent", arguments: args });
export const getResult = (args: Json) => ({ name: "GetAgentResult", arguments: args });
