// Runs the MCP extension inside the real kernel against the faux provider: a temp git workspace
// and Keel home, the user's config written as a user would, helpers to wait for the MCP status
// and to read what each model request carried.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CodingAgent,
  type CodingAgentEvent,
  type CodingAgentOptions,
  createCodingAgent,
} from "@keel/coding-agent";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { createFauxFetch, fauxModel, type RecordedRequest, type Scenario } from "@keel/testing";
import { mcpExtension } from "../../src/index.js";

export interface Sandbox {
  root: string;
  workspace: string;
  home: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "keel-mcp-e2e-"));
  const workspace = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  execFileSync("git", ["init", "-q", workspace]);
  return {
    root,
    workspace,
    home,
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
  };
}

/** ~/.keel/config.json with MCP servers (and anything else, e.g. permissions). */
export function writeUserConfig(
  box: Sandbox,
  servers: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  writeFileSync(
    join(box.home, "config.json"),
    JSON.stringify({ ...extra, extensions: { mcp: { config: { servers } } } }, null, 2),
  );
}

export function fauxProvider(scenario: Scenario) {
  const transport = createFauxFetch(scenario);
  return {
    requests: transport.requests,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: transport.fetch, apiKey: "test", retry: { baseDelayMs: 1 } },
  };
}

export interface Started {
  agent: CodingAgent;
  events: CodingAgentEvent[];
  /** Resolves when the MCP status line says `text` (e.g. "mcp 1/1"). */
  status(match: (text: string) => boolean, timeoutMs?: number): Promise<string>;
}

export async function start(options: CodingAgentOptions): Promise<Started> {
  const events: CodingAgentEvent[] = [];
  const waiters: { match: (text: string) => boolean; resolve: (text: string) => void }[] = [];
  let last: string | undefined;
  const created = await createCodingAgent({
    discoverExtensions: false,
    extensions: [mcpExtension as unknown as ExtensionDefinition],
    ...options,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
      if (event.type === "status" && event.key === "mcp") {
        last = event.text;
        for (const w of [...waiters])
          if (w.match(event.text ?? "")) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(event.text ?? "");
          }
      }
    },
  });
  if (created.isErr()) throw new Error(`createCodingAgent failed: ${created.error.message}`);
  return {
    agent: created.value,
    events,
    status: (match, timeoutMs = 20_000) =>
      last !== undefined && match(last)
        ? Promise.resolve(last)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`MCP status never matched; last: ${last}`)),
              timeoutMs,
            );
            waiters.push({
              match,
              resolve: (text) => {
                clearTimeout(timer);
                resolve(text);
              },
            });
          }),
  };
}

type Json = Record<string, unknown>;

/** Every text of every user message of a request (tool results included), in order. */
export function texts(request: RecordedRequest | undefined): string[] {
  const out: string[] = [];
  for (const message of (request?.body.messages ?? []) as Json[]) {
    const content = message.content;
    if (typeof content === "string") out.push(content);
    else
      for (const block of content as Json[]) {
        if (typeof block.text === "string") out.push(block.text);
        if (Array.isArray(block.content))
          for (const inner of block.content as Json[])
            if (typeof inner.text === "string") out.push(inner.text);
        if (typeof block.content === "string") out.push(block.content);
      }
  }
  return out;
}

export const notices = (request: RecordedRequest | undefined) =>
  texts(request).filter((t) => t.startsWith("<capabilities>"));
