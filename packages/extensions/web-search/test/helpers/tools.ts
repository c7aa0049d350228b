// Runs the extension's tools outside the kernel: activates it against an in-memory runtime with
// the given config and seams, and records what it reports and which usage it records.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExtensionRuntime, type ExternalUsage, listTools, type ToolResult } from "@keel/extension-sdk";
import { testRuntime, testToolContext } from "@keel/extension-sdk/testing";
import { resolveConfig, type WebConfig } from "../../src/config.js";
import { createWebSearchExtension, type WebSearchOptions } from "../../src/extension.js";

type Layer = Parameters<typeof resolveConfig>[0]["user"];

/** A data folder per activation unless one is given (so a hint told once is told in each test). */
export async function activated(
  options: WebSearchOptions,
  user: Layer = {},
  project?: Layer,
  dataDir?: string,
) {
  const extension = createWebSearchExtension(options);
  const config = resolveConfig({ user, project });
  const reports: { level: string; message: string }[] = [];
  const usage: ExternalUsage[] = [];
  const runtime = testRuntime<WebConfig, { searches: number }, unknown>(extension, { config });
  const data = dataDir ?? mkdtempSync(join(tmpdir(), "keel-web-data-"));
  const debug: string[] = [];
  Object.assign(runtime, {
    dataDir: () => data,
    debug: (message: string) => debug.push(message),
    report: (level: string, message: string) => reports.push({ level, message }),
    recordUsage: (u: ExternalUsage) => usage.push(u),
  });
  const instance = await extension.lifecycle!.activate!({
    ...runtime,
    signal: new AbortController().signal,
  } as never);
  Object.assign(runtime, { instance });
  const tools = listTools(extension, runtime as ExtensionRuntime<never, never, never>);
  const run = async (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name} (tools: ${tools.map((t) => t.name).join(", ")})`);
    return tool.execute(args as never, testToolContext(signal ? { signal } : {}), runtime as never);
  };
  return { extension, runtime, reports, debug, usage, tools: tools.map((t) => t.name), run };
}

export const text = (r: ToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
