// The skills extension inside the real kernel against the faux provider: a sandbox (git project,
// home, Keel home), trust, and readers for what each request carried — the capability notices,
// tool results, and the canonical bytes the cache-prefix checks compare.
import type { CodingAgent, CodingAgentOptions } from "@keel/coding-agent";
import { fauxProvider, kernelFixture, startKernel } from "@keel/coding-agent/testing";
import type { RecordedRequest, Scenario } from "@keel/testing";

export { hosted, prefixRetention } from "@keel/coding-agent/testing";

export interface Box {
  root: string;
  project: string;
  /** `~` for the run (HOME), so `~/.agents/skills` is the sandbox's. */
  home: string;
  keelHome: string;
  trust(): void;
  cleanup(): void;
}

export function box(): Box {
  const f = kernelFixture({ name: "skills-e2e" });
  return {
    root: f.root,
    project: f.workspace,
    home: f.home,
    keelHome: f.keelHome,
    trust: f.trust,
    cleanup: f.cleanup,
  };
}

export const provider = (scenario: Scenario) => fauxProvider(scenario);

export const start = (options: CodingAgentOptions): Promise<CodingAgent> => startKernel(options);

type Json = Record<string, unknown>;

function blockTexts(message: Json): string[] {
  const content = message.content;
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((b) => {
    if (typeof b.text === "string") return [b.text];
    if (b.type === "tool_result") {
      const inner = b.content;
      if (typeof inner === "string") return [inner];
      if (Array.isArray(inner)) return (inner as Json[]).map((c) => String(c.text ?? ""));
    }
    return [];
  });
}

export function messagesOf(request: RecordedRequest): Json[] {
  return (request.body.messages ?? []) as Json[];
}

/** Every text of a request's messages that is a capability notice. */
export function notices(request: RecordedRequest): string[] {
  return messagesOf(request)
    .filter((m) => m.role === "user")
    .flatMap(blockTexts)
    .filter((t) => t.includes("<capabilities>"));
}

/** The notices a request added over the previous one. */
export function newNotices(previous: RecordedRequest | undefined, request: RecordedRequest): string[] {
  const seen = new Set(previous ? notices(previous) : []);
  return notices(request).filter((t) => !seen.has(t));
}

/** Tool result texts of a request, in order. */
export function toolResults(request: RecordedRequest): string[] {
  return messagesOf(request).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Json[])
          .filter((b) => b.type === "tool_result")
          .flatMap((b) => blockTexts({ content: [b] }))
      : [],
  );
}
