// Runs extensions inside the real kernel against the faux provider: a temp git workspace, a temp
// Keel home, a recording host UI, and helpers to read what each model request carried.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CodingAgent, type CodingAgentOptions, createCodingAgent } from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { createFauxFetch, fauxModel, type RecordedRequest, type Scenario } from "@keel/testing";

export interface Sandbox {
  root: string;
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "keel-ext-e2e-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", workspace]);
  return { root, workspace, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface UiRecord {
  widgets: { key: string; lines: string[] | undefined }[];
  statuses: { key: string; text: string | undefined }[];
}

export function recordingUi(): UiRecord & { ui: NonNullable<CodingAgentOptions["ui"]> } {
  const widgets: UiRecord["widgets"] = [];
  const statuses: UiRecord["statuses"] = [];
  return {
    widgets,
    statuses,
    ui: {
      setWidget: (key, lines) => widgets.push({ key, lines }),
      setStatus: (key, text) => statuses.push({ key, text }),
    },
  };
}

export function fauxProvider(scenario: Scenario) {
  const transport = createFauxFetch(scenario);
  return {
    requests: transport.requests,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: transport.fetch, apiKey: "test", retry: { baseDelayMs: 1 } },
  };
}

export async function start(options: CodingAgentOptions): Promise<CodingAgent> {
  const created = await createCodingAgent(options);
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return created.value;
}

interface WireMessage {
  role: string;
  content: string | { type: string; text?: string }[];
}

/** The text of the last content block of a request's last message (Anthropic wire format). */
export function lastMessageText(request: RecordedRequest | undefined): { role: string; text: string } {
  const messages = (request?.body.messages ?? []) as WireMessage[];
  const last = messages.at(-1);
  if (!last) return { role: "none", text: "" };
  if (typeof last.content === "string") return { role: last.role, text: last.content };
  return { role: last.role, text: last.content.at(-1)?.text ?? "" };
}

/**
 * A typed definition as the kernel's `extensions` option takes it. The SDK's hooks and lifecycle
 * are function-typed properties, so ExtensionDefinition<Config, State> is not assignable to the
 * erased ExtensionDefinition under strictFunctionTypes; until the contract widens that, cast here.
 */
export function hosted(definition: object): ExtensionDefinition {
  return definition as ExtensionDefinition;
}
