// The connector extension inside the real kernel: a temp git workspace and Keel home whose user
// config points GitHub at the fake, the faux model provider, and a recording approval dialog.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  ApprovalAnswer,
  CodingAgent,
  CodingAgentEvent,
  CodingAgentOptions,
  ToolApprovalRequest,
} from "@keel/coding-agent";
import { fauxProvider, kernelFixture, startKernel, toolResults } from "@keel/coding-agent/testing";
import type { RecordedRequest, Scenario } from "@keel/testing";

export interface Box {
  root: string;
  workspace: string;
  home: string;
  /** `~/.keel/config.json` of this box. */
  configFile: string;
  cleanup(): void;
}

export function box(userConfig: Record<string, unknown>): Box {
  const fixture = kernelFixture({ name: "connector-e2e" });
  // This harness's `home` is the Keel home the kernel is given.
  const home = fixture.keelHome;
  const configFile = join(home, "config.json");
  writeFileSync(
    configFile,
    `${JSON.stringify({ extensions: { connector: { config: userConfig } } }, null, 2)}\n`,
  );
  return { root: fixture.root, workspace: fixture.workspace, home, configFile, cleanup: fixture.cleanup };
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

export const provider = (scenario: Scenario) => fauxProvider(scenario);

export function start(options: CodingAgentOptions, events?: CodingAgentEvent[]): Promise<CodingAgent> {
  return startKernel({ discoverExtensions: true, ...options, ...(events ? { events } : {}) });
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
  return toolResults(request).map((r) => r.text);
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
