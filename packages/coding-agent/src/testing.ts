// The kernel's test harness (`@keel/coding-agent/testing`), for tests of the kernel, of extensions
// and of hosts: a throwaway project and home, the faux provider, a UI that records what it was
// shown, a kernel started from them, and the one prompt-cache prefix check. Tests only: it needs
// `@keel/testing`, which the kernel does not depend on at run time.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Api, Model } from "@keel/ai";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { createFauxFetch, fauxModel, type RecordedRequest, type Scenario } from "@keel/testing";
import { createCodingAgent } from "./kernel/create.js";
import type {
  ApprovalAnswer,
  CodingAgent,
  CodingAgentEvent,
  CodingAgentOptions,
  ToolApprovalRequest,
} from "./kernel/types.js";
import { trustProject } from "./trust/store.js";

export {
  assertPrefixRetained,
  type PrefixRetention,
  type PrefixRetentionOptions,
  prefixRetention,
} from "@keel/testing";

export interface KernelFixture {
  /** The temporary folder holding everything below; removed by cleanup(). */
  root: string;
  /** The project: a git repository (unless `git: false`). */
  workspace: string;
  /** The user's home for the run (HOME), so `~/…` paths are the fixture's. */
  home: string;
  /** The Keel home (`<home>/.keel`), as the kernel's `home` option takes it. */
  keelHome: string;
  /** Writes a file under the root (parents made), returning its path. */
  write(path: string, text: string): string;
  /** Trusts the workspace, as `/trust yes` would. */
  trust(): void;
  /** What starts a kernel in this project, with these homes, on `provider` (fauxProvider's). */
  options(provider: Pick<CodingAgentOptions, "model" | "streamOptions">): CodingAgentOptions;
  cleanup(): void;
}

/** A throwaway project and home; realpaths, so paths the kernel reports compare equal. */
export function kernelFixture(options: { git?: boolean; name?: string } = {}): KernelFixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `keel-${options.name ?? "kernel"}-`)));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  const keelHome = join(home, ".keel");
  mkdirSync(workspace);
  mkdirSync(keelHome, { recursive: true });
  if (options.git !== false) execFileSync("git", ["init", "-q", workspace]);
  return {
    root,
    workspace,
    home,
    keelHome,
    write(path, text) {
      const at = join(root, path);
      mkdirSync(dirname(at), { recursive: true });
      writeFileSync(at, text);
      return at;
    },
    trust() {
      const done = trustProject(workspace, { home: keelHome });
      if (done.isErr()) throw new Error(done.error.message);
    },
    options: (provider) => ({
      cwd: workspace,
      home: keelHome,
      userHome: home,
      model: provider.model,
      streamOptions: provider.streamOptions,
    }),
    // Retries: a server a test started may still be writing inside the tree as it goes.
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
  };
}

/** The faux provider on a scenario: its model, stream options for the kernel, the requests it received, and its transport (setScenario, listings). */
export function fauxProvider(
  scenario: Scenario,
  api: Api = "anthropic-messages",
  overrides: Partial<Model> = {},
) {
  const transport = createFauxFetch(scenario);
  return {
    ...transport,
    requests: transport.requests as RecordedRequest[],
    model: { ...(fauxModel(api) as Model), ...overrides },
    streamOptions: { fetch: transport.fetch, apiKey: "test", retry: { baseDelayMs: 1 } },
  };
}

export interface RecordingUi {
  widgets: { key: string; lines: string[] | undefined }[];
  statuses: { key: string; text: string | undefined }[];
  notes: string[];
  /** What confirm() was asked, in order; each is answered by `answer` (default: no). */
  confirms: string[];
  /** What the approval dialog was asked, in order (interactive only); answered by `approve` (default: deny). */
  approvals: ToolApprovalRequest[];
  ui: NonNullable<CodingAgentOptions["ui"]>;
}

/** A host UI that records widgets, statuses and notifications; `interactive` offers confirm like the TUI. */
export function recordingUi(
  options: {
    interactive?: boolean;
    answer?: (question: string) => boolean;
    approve?: (request: ToolApprovalRequest) => ApprovalAnswer;
  } = {},
): RecordingUi {
  const record: Omit<RecordingUi, "ui"> = {
    widgets: [],
    statuses: [],
    notes: [],
    confirms: [],
    approvals: [],
  };
  const interactive = options.interactive ?? false;
  return {
    ...record,
    ui: {
      setWidget: (key, lines) => record.widgets.push({ key, lines }),
      setStatus: (key, text) => record.statuses.push({ key, text }),
      notify: (message) => record.notes.push(message),
      ...(interactive
        ? {
            confirm: async (title: string) => {
              record.confirms.push(title);
              return { status: "ok" as const, value: options.answer?.(title) ?? false };
            },
            approve: async (request: ToolApprovalRequest): Promise<ApprovalAnswer> => {
              record.approvals.push(request);
              return options.approve?.(request) ?? { decision: "deny" };
            },
          }
        : {}),
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

/**
 * A kernel from a fixture and a provider, extensions given explicitly (none discovered), or a
 * thrown Error naming why it could not start. `events` collects every event it emits.
 */
export async function startKernel(
  options: CodingAgentOptions & { events?: CodingAgentEvent[] },
): Promise<CodingAgent> {
  const { events, ...rest } = options;
  const onEvent = rest.onEvent;
  const created = await createCodingAgent({
    discoverExtensions: false,
    ...rest,
    ...(events
      ? {
          onEvent: (event: CodingAgentEvent) => {
            events.push(event);
            onEvent?.(event);
          },
        }
      : {}),
  });
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return created.value;
}

export interface ResumedSession {
  /** The session resumed from its file; the caller closes it. */
  agent: CodingAgent;
  /** The model's three answers, in order. */
  answers: string[];
}

/**
 * A session with all a resume must tell apart, closed and resumed: three prompts, a notice the
 * extension `jobs` leaves at the second run, a compaction before the third. The first two answers
 * are long enough that the compaction keeps only the second on.
 */
export async function resumedSession(fixture: KernelFixture): Promise<ResumedSession> {
  const long = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;
  const answers = [`First answer.${long}`, `Second answer.${long}`, "Third answer."];
  const summary = "## Goal\nKeep going.\n## Next steps\n- more";
  const faux = fauxProvider({
    turns: [{ text: answers[0]! }, { text: answers[1]! }, { text: summary }, { text: answers[2]! }],
  });
  let runs = 0;
  const notifier = hosted({
    id: "jobs",
    hooks: {
      runStart: (_event: unknown, runtime: { persistNotice(text: string): void }) => {
        if (++runs === 2) runtime.persistNotice("Background job finished: 3 tests failed.");
      },
    },
  });
  const options = { ...fixture.options(faux), extensions: [notifier] };
  const agent = await startKernel(options);
  await agent.prompt("first question");
  await agent.prompt("second question");
  const compacted = await agent.compact();
  if (compacted.isErr()) throw new Error(`compact failed: ${compacted.error.message}`);
  await agent.prompt("third question");
  const file = agent.sessionFile!;
  await agent.close();
  const resumed = await startKernel({ ...options, session: { mode: "resume", session: file } });
  return { agent: resumed, answers };
}

/**
 * A typed definition as the kernel's `extensions` option takes it: the SDK's hooks are
 * function-typed properties, so ExtensionDefinition<Config, State> is not assignable to the erased
 * ExtensionDefinition under strictFunctionTypes.
 */
export function hosted(definition: object): ExtensionDefinition {
  return definition as ExtensionDefinition;
}

type Json = Record<string, unknown>;

/** The texts of a content block list (Anthropic wire shape), tool results' inner texts included. */
function blockTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((b) =>
    typeof b.text === "string"
      ? [b.text]
      : b.type === "tool_result"
        ? [blockTexts(b.content).join("\n")]
        : [],
  );
}

/** The tool results a request sent the model, in order (Anthropic wire shape). */
export function toolResults(request: RecordedRequest | undefined): { text: string; isError: boolean }[] {
  const messages = (request?.body.messages ?? []) as Json[];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Json[])
          .filter((b) => b.type === "tool_result")
          .map((b) => ({ text: blockTexts(b.content).join("\n"), isError: b.is_error === true }))
      : [],
  );
}

/** The text of every user message of a request, tool results left out. */
export function userTexts(request: RecordedRequest | undefined): string[] {
  const messages = (request?.body.messages ?? []) as Json[];
  return messages
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : Array.isArray(m.content)
          ? (m.content as Json[]).filter((b) => b.type === "text").map((b) => String(b.text))
          : [],
    );
}
