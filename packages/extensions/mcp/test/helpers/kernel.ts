// Runs the MCP extension inside the real kernel against the faux provider, on the kernel's test
// harness (`@keel/coding-agent/testing`): the user's config written as a user would, helpers to
// wait for the MCP status and to read what each model request carried.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CodingAgent, CodingAgentEvent, CodingAgentOptions } from "@keel/coding-agent";
import { hosted, kernelFixture, startKernel } from "@keel/coding-agent/testing";
import type { RecordedRequest } from "@keel/testing";
import { mcpExtension } from "../../src/index.js";

export { fauxProvider } from "@keel/coding-agent/testing";

export interface Sandbox {
  root: string;
  workspace: string;
  home: string;
  cleanup(): void;
}

/** A throwaway git project and Keel home (`home` is the Keel home the kernel is given). */
export function sandbox(): Sandbox {
  const fixture = kernelFixture({ name: "mcp-e2e" });
  return {
    root: fixture.root,
    workspace: fixture.workspace,
    home: fixture.keelHome,
    cleanup: fixture.cleanup,
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
  const agent = await startKernel({
    extensions: [hosted(mcpExtension)],
    ...options,
    events,
    onEvent: (event) => {
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
  return {
    agent,
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
