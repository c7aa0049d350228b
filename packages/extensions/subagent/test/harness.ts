// The real kernel against the mock model server, on the kernel's test harness
// (`@keel/coding-agent/testing`): parent and child requests told apart by the child's task, the
// agents widget of the recording UI, and journal readers.
import { readFileSync } from "node:fs";
import type { CodingAgent, CodingAgentOptions } from "@keel/coding-agent";
import { kernelFixture, recordingUi as kernelUi, startKernel } from "@keel/coding-agent/testing";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { fauxModel, type MockServer, type RecordedRequest, type ScenarioTurn } from "@keel/testing";

export { hosted, toolResults, userTexts } from "@keel/coding-agent/testing";

export type Json = Record<string, unknown>;

export interface Sandbox {
  workspace: string;
  home: string;
  write(path: string, text: string): string;
  cleanup(): void;
}

/** A throwaway git project and Keel home (`home` is the Keel home the kernel is given). */
export function sandbox(): Sandbox {
  const fixture = kernelFixture({ name: "subagent" });
  return {
    workspace: fixture.workspace,
    home: fixture.keelHome,
    write: fixture.write,
    cleanup: fixture.cleanup,
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
  /** What the agents widget showed, in order (undefined: cleared). */
  widgets: (string[] | undefined)[];
  notes: string[];
  ui: NonNullable<CodingAgentOptions["ui"]>;
}

/** The kernel's recording UI, seen through the agents widget; `interactive` offers confirm, like the TUI. */
export function recordingUi(interactive = true): UiLog {
  const recorded = kernelUi({ interactive });
  return {
    get widgets() {
      return recorded.widgets.filter((w) => w.key === "agents").map((w) => w.lines);
    },
    notes: recorded.notes,
    ui: recorded.ui,
  };
}

export async function startAgent(
  server: MockServer,
  box: Sandbox,
  extensions: ExtensionDefinition[],
  options: Partial<CodingAgentOptions> = {},
): Promise<CodingAgent> {
  return startKernel({
    cwd: box.workspace,
    home: box.home,
    model: fauxModel("anthropic-messages", { baseUrl: server.anthropicBaseUrl }) as never,
    streamOptions: { apiKey: "test", retry: { baseDelayMs: 1 }, fetch: loopbackFetch(server) },
    permissionMode: "bypassPermissions",
    extensions,
    ...options,
  });
}

export function journal(file: string): Json[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
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
