// `keel acp`: Keel as an Agent Client Protocol agent over stdio (JSON-RPC, one message a line), for
// editors (Zed, JetBrains, Neovim, Emacs). Composes the kernel like the other modes; stdout is the
// protocol's alone, so everything else keel would print goes to stderr.
import { Readable, Writable } from "node:stream";
import {
  agent as acpAgent,
  type ClientCapabilities,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { type CodingAgentOptions, killAllCommandTrees } from "@keel/coding-agent";
import { parseCliArgs } from "../args.js";
import { composeOptions } from "../compose.js";
import { EXIT } from "../exit-codes.js";
import { guardExits, SIGNAL_EXIT } from "../exit-guard.js";
import { AcpSession } from "./session.js";

const USAGE = `Usage: keel acp [--model <provider/id>] [--permission-mode <mode>] [--thinking <level>] [-e <path>]… [--no-extensions] [--append-system-prompt <text>] [--debug]

Runs Keel as an Agent Client Protocol agent on stdin/stdout, for editors to start. The editor
names the project folder of each session; see the CLI README for Zed, JetBrains and Neovim.
`;

/** Flags a session of an editor cannot take from the command line: the editor decides these. */
function refused(argv: string[]): string | undefined {
  const flags = [
    "-p",
    "--print",
    "-c",
    "--continue",
    "-r",
    "--resume",
    "--fork",
    "--no-session",
    "--read-only",
    "--cwd",
  ];
  const flag = argv.find((a) => flags.includes(a.split("=")[0]!));
  if (flag) return `keel acp: ${flag} is not for acp: the editor chooses the folder and the sessions.`;
  return undefined;
}

function baseOptions(argv: string[]): CodingAgentOptions | string {
  const problem = refused(argv);
  if (problem) return problem;
  const parsed = parseCliArgs(argv);
  if (parsed.isErr()) return `keel acp: ${parsed.error.message}`;
  if (parsed.value.kind !== "run" || parsed.value.flags.prompt !== undefined)
    return "keel acp takes flags only; prompts come from the editor.";
  const composed = composeOptions(parsed.value.flags);
  return composed.isErr() ? `keel acp: ${composed.error.message}` : composed.value;
}

/** Anything a dependency or extension prints must not land in the protocol's stream. */
function keepStdoutForTheProtocol(): void {
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
}

/** `version`: keel's, as the bin read it (the bundled core has no package.json of its own to read). */
export async function runAcp(argv: string[], version: string): Promise<number> {
  if (argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  const base = baseOptions(argv);
  if (typeof base === "string") {
    process.stderr.write(`${base}\n`);
    return EXIT.usage;
  }
  keepStdoutForTheProtocol();
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};
  const session = (sessionId: string): AcpSession => {
    const found = sessions.get(sessionId);
    if (!found) throw RequestError.resourceNotFound(sessionId);
    return found;
  };
  const open = async (
    client: Parameters<typeof AcpSession.open>[0]["client"],
    params: { cwd: string; mcpServers: Parameters<typeof AcpSession.open>[0]["mcpServers"] },
    load?: string,
  ): Promise<AcpSession> => {
    // Loading a session this process holds open: it is closed first (the journal has one writer).
    if (load !== undefined) {
      await sessions.get(load)?.close();
      sessions.delete(load);
    }
    const opened = await AcpSession.open({
      client,
      capabilities,
      base,
      cwd: params.cwd,
      mcpServers: params.mcpServers,
      ...(load !== undefined ? { load } : {}),
    });
    if (opened.isErr()) throw opened.error;
    sessions.set(opened.value.id, opened.value);
    return opened.value;
  };

  const app = acpAgent({ name: "keel" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "keel", title: "Keel", version },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true, audio: false },
          mcpCapabilities: { http: true, sse: true },
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const opened = await open(client, params);
      // After the answer: the client knows the session id by then.
      setImmediate(() => opened.announce());
      return { sessionId: opened.id, modes: opened.modes(), configOptions: opened.configOptions() };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const opened = await open(client, params, params.sessionId);
      await opened.replay();
      opened.announce();
      await opened.flushed();
      return { modes: opened.modes(), configOptions: opened.configOptions() };
    })
    .onRequest("session/prompt", ({ params }) => session(params.sessionId).prompt(params.prompt))
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.cancel())
    .onRequest("session/set_mode", ({ params }) => {
      session(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => ({
      configOptions: session(params.sessionId).setConfigOption(params.configId, params.value),
    }));

  const closeAll = async () => {
    await Promise.all([...sessions.values()].map((s) => s.close()));
    sessions.clear();
  };
  const guard = guardExits({
    onStop: () => {
      for (const s of sessions.values()) s.cancel();
      connection.close();
    },
    close: closeAll,
    killProcesses: killAllCommandTrees,
    note: (message) => process.stderr.write(`keel acp: ${message}\n`),
  });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  );
  try {
    // The editor closing stdin (or a signal) ends the connection: every run stops, every session
    // is saved and unlocked, and the processes its commands started are ended.
    await connection.closed;
    for (const s of sessions.values()) s.cancel();
    await closeAll();
    killAllCommandTrees();
  } finally {
    guard.dispose();
  }
  const stopped = guard.signal();
  return stopped ? SIGNAL_EXIT[stopped] : EXIT.ok;
}
