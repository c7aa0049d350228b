// Runs extensions inside the real kernel against the faux provider: a temp git workspace, a temp
// Keel home, a recording host UI, and helpers to read what each model request carried.
import type { CodingAgent, CodingAgentOptions } from "@keel/coding-agent";
import { fauxProvider as faux, kernelFixture, startKernel } from "@keel/coding-agent/testing";
import type { RecordedRequest, Scenario } from "@keel/testing";

export { hosted, recordingUi } from "@keel/coding-agent/testing";

export interface Sandbox {
  root: string;
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const f = kernelFixture({ name: "ext-e2e" });
  return { root: f.root, workspace: f.workspace, home: f.home, cleanup: f.cleanup };
}

export const fauxProvider = (scenario: Scenario) => faux(scenario);

/** The kernel; extensions in ~/.keel/extensions are discovered as a user's would be. */
export const start = (options: CodingAgentOptions): Promise<CodingAgent> =>
  startKernel({ discoverExtensions: true, ...options });

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
