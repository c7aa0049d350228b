// The skills extension inside the real kernel against the faux provider: a sandbox (git project,
// home, Keel home), trust, and readers for what each request carried — the capability notices,
// tool results, and the canonical bytes the cache-prefix checks compare.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CodingAgent,
  type CodingAgentOptions,
  createCodingAgent,
  trustProject,
} from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import {
  createFauxFetch,
  fauxModel,
  historyBreakpoints,
  type RecordedRequest,
  type Scenario,
  stripCacheControl,
} from "@keel/testing";

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
  const root = realpathSync(mkdtempSync(join(tmpdir(), "keel-skills-e2e-")));
  const project = join(root, "project");
  const home = join(root, "home");
  const keelHome = join(home, ".keel");
  mkdirSync(project);
  mkdirSync(keelHome, { recursive: true });
  execFileSync("git", ["init", "-q", project]);
  return {
    root,
    project,
    home,
    keelHome,
    trust: () => {
      const done = trustProject(project, { home: keelHome });
      if (done.isErr()) throw new Error(done.error.message);
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
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

export async function start(options: CodingAgentOptions): Promise<CodingAgent> {
  const created = await createCodingAgent({ discoverExtensions: false, ...options });
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return created.value;
}

export function hosted(definition: object): ExtensionDefinition {
  return definition as ExtensionDefinition;
}

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

const strip = stripCacheControl;

const isSynthetic = (m: Json | undefined) =>
  m?.role === "user" && blockTexts(m)[0]?.startsWith("<system-reminder>") === true;

/**
 * Canonical prefix retention over consecutive requests of one branch, cache markers kept: each
 * request (minus a trailing one-request reminder) must be a prefix of the next with the markers
 * stripped, and the previous request's last cache marker must sit on a block the next request
 * holds at the same position with the same content. Returns the share of pairs that hold and a
 * description of the first that does not.
 */
export function prefixRetention(requests: RecordedRequest[]): { retention: number; failure?: string } {
  let kept = 0;
  let failure: string | undefined;
  for (let n = 0; n + 1 < requests.length; n++) {
    const a = requests[n]!.body;
    const b = requests[n + 1]!.body;
    const am = [...((a.messages ?? []) as Json[])];
    if (isSynthetic(am.at(-1))) am.pop();
    const bm = (b.messages ?? []) as Json[];
    const head = JSON.stringify(strip([a.system, a.tools])) === JSON.stringify(strip([b.system, b.tools]));
    const prefix = am.every((m, i) => JSON.stringify(strip(m)) === JSON.stringify(strip(bm[i])));
    // Where the previous request's last history marker was: that block must still be there.
    const mark = historyBreakpoints(requests[n]!).at(-1);
    const there = mark ? bm[mark.message]?.content : undefined;
    const markerOk =
      !mark ||
      (Array.isArray(there) &&
        JSON.stringify(strip((there as Json[])[mark.block])) === JSON.stringify(strip(mark.value)));
    if (head && prefix && markerOk) kept++;
    else
      failure ??= `request ${n} → ${n + 1}: ${!head ? "system/tools changed" : !prefix ? "history changed" : "the cache marker's block moved"}`;
  }
  return {
    retention: requests.length < 2 ? 1 : kept / (requests.length - 1),
    ...(failure ? { failure } : {}),
  };
}
