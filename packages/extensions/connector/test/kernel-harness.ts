// The connector extension inside the real kernel: a temp git workspace and Keel home whose user
// config points GitHub at the fake, the faux model provider, and a recording approval dialog.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ApprovalAnswer,
  type CodingAgent,
  type CodingAgentEvent,
  type CodingAgentOptions,
  createCodingAgent,
  type ToolApprovalRequest,
} from "@keel/coding-agent";
import { createFauxFetch, fauxModel, type RecordedRequest, type Scenario } from "@keel/testing";

export interface Box {
  root: string;
  workspace: string;
  home: string;
  /** `~/.keel/config.json` of this box. */
  configFile: string;
  cleanup(): void;
}

export function box(userConfig: Record<string, unknown>): Box {
  const root = mkdtempSync(join(tmpdir(), "keel-connector-e2e-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", workspace]);
  const configFile = join(home, "config.json");
  writeFileSync(
    configFile,
    `${JSON.stringify({ extensions: { connector: { config: userConfig } } }, null, 2)}\n`,
  );
  return { root, workspace, home, configFile, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Dialog {
  asked: ToolApprovalRequest[];
  ui: NonNullable<CodingAgentOptions["ui"]>;
}

/** An approval dialog that answers with `answer` and keeps every question. */
export function dialog(
  answer: (request: ToolApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>,
): Dialog {
  const asked: ToolApprovalRequest[] = [];
  return {
    asked,
    ui: {
      approve: async (request) => {
        asked.push(request);
        return answer(request);
      },
    },
  };
}

export function provider(scenario: Scenario) {
  const transport = createFauxFetch(scenario);
  return {
    requests: transport.requests,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: transport.fetch, apiKey: "test", retry: { baseDelayMs: 1 } },
  };
}

export async function start(options: CodingAgentOptions, events?: CodingAgentEvent[]): Promise<CodingAgent> {
  const created = await createCodingAgent({
    ...options,
    ...(events ? { onEvent: (e) => events.push(e) } : {}),
  });
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return created.value;
}

/** Every session journal under the box's home, as text (parents and children). */
export function journals(b: Box): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) out.push(readFileSync(path, "utf8"));
    }
  };
  walk(join(b.home, "sessions"));
  return out.join("\n");
}

export function entriesOf(journal: string): Record<string, unknown>[] {
  return journal
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The text of every tool result the model was sent in a request. */
export function toolResultTexts(request: RecordedRequest | undefined): string[] {
  const messages = (request?.body.messages ?? []) as { role: string; content: unknown }[];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; content?: unknown }[])
          .filter((b) => b.type === "tool_result")
          .map((b) =>
            typeof b.content === "string"
              ? b.content
              : (b.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n"),
          )
      : [],
  );
}

let calls = 0;

/**
 * A turn calling ExecuteTool. Ids are unique across sessions: the faux provider numbers calls
 * per transport, and a resumed session must not see a new call under an old call's id.
 */
export const execute = (toolRef: string, args: Record<string, unknown>) => ({
  toolCalls: [
    { id: `toolu_connector_${++calls}`, name: "ExecuteTool", arguments: { toolRef, arguments: args } },
  ],
});
