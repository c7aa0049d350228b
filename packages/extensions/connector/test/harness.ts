// The connector extension activated against the SDK's in-memory test runtime: a temp data
// folder, recorded diagnostics, every journaled decision, and a way to call an entry as
// ExecuteTool would (validated arguments, an approval function standing in for the dialog).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  ApprovalDecision,
  ApprovalRequest,
  ExecutableCatalogEntry,
  ToolResult,
} from "@keel/extension-sdk";
import { testRuntime, testToolContext } from "@keel/extension-sdk/testing";
import { DEFAULT_CONFIG } from "../src/config.js";
import {
  type Connector,
  type ConnectorConfig,
  type ConnectorInstance,
  type ConnectorRuntime,
  connectorExtension,
  type DecisionRecord,
} from "../src/index.js";
import type { ConnectorState } from "../src/state.js";

export interface Harness {
  runtime: ConnectorRuntime;
  dataDir: string;
  reports: { level: string; message: string }[];
  decisions: DecisionRecord[];
  questions: ApprovalRequest[];
  configWrites: ConnectorConfig[];
  entries(connectorId: string): Promise<ExecutableCatalogEntry[]>;
  call(
    name: string,
    args: Record<string, unknown>,
    answer?: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
    extra?: { agent?: { agentId: string; title: string }; signal?: AbortSignal },
  ): Promise<ToolResult>;
  cleanup(): void;
}

export async function activate(options: {
  connectors: readonly Connector[];
  env?: Record<string, string | undefined>;
  config?: Partial<ConnectorConfig>;
  now?: () => number;
  dataDir?: string;
  /** A host with a person at it (the TUI): default true; false is print mode's headless host. */
  interactive?: boolean;
}): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "keel-connector-"));
  const definition = connectorExtension({
    connectors: options.connectors,
    env: options.env ?? {},
    ...(options.now ? { now: options.now } : {}),
  });
  const runtime = testRuntime<ConnectorConfig, ConnectorState, ConnectorInstance>(definition, {
    config: { ...DEFAULT_CONFIG, ...options.config },
    cwd: dataDir,
  });
  const reports: Harness["reports"] = [];
  const decisions: DecisionRecord[] = [];
  const questions: ApprovalRequest[] = [];
  const configWrites: ConnectorConfig[] = [];
  const mutable = runtime as { -readonly [K in keyof ConnectorRuntime]: ConnectorRuntime[K] };
  mutable.report = (level, message) => reports.push({ level, message });
  mutable.debug = (message) => reports.push({ level: "debug", message });
  if (options.interactive !== false)
    mutable.ui = {
      ...runtime.ui,
      supports: { ...runtime.ui.supports, confirm: true, select: true, input: true },
    };
  const set = runtime.state.set;
  mutable.state = {
    ...runtime.state,
    set: (next) => {
      if (next.decision) decisions.push(next.decision as DecisionRecord);
      set(next);
    },
  };
  const update = runtime.updateConfig;
  mutable.updateConfig = (scope, fn) => {
    const written = update(scope, fn);
    if (written.ok) configWrites.push(written.config);
    return written;
  };
  const lifecycle = definition.lifecycle!;
  mutable.instance = await lifecycle.activate!({ ...runtime, signal: new AbortController().signal } as never);

  const entries = async (connectorId: string) => {
    const catalog = definition.catalogs!.find((c) => c.id === connectorId)!;
    const inventory = await catalog.discover(runtime, { signal: new AbortController().signal });
    return (Array.isArray(inventory) ? inventory : inventory.entries) as ExecutableCatalogEntry[];
  };
  return {
    runtime,
    dataDir,
    reports,
    decisions,
    questions,
    configWrites,
    entries,
    async call(name, args, answer, extra = {}) {
      const connectorId = name.split("__")[0]!;
      const entry = (await entries(connectorId)).find((e) => e.name === name);
      if (!entry) throw new Error(`${name} is not listed`);
      const context = testToolContext({
        approve: async (request) => {
          questions.push(request);
          return answer ? answer(request) : { status: "unsupported" };
        },
        ...(extra.agent ? { agent: extra.agent } : {}),
        ...(extra.signal ? { signal: extra.signal } : {}),
      });
      return entry.execute(args as never, context);
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export function textOf(result: ToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/** Every policy rule allowed, so a test of the service path is not a test of approvals. */
export const ALLOW_ALL: Partial<ConnectorConfig> = {
  policy: { classes: { read: "allow", create: "allow", update: "allow", destructive: "allow" } },
};

/** A loopback port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
