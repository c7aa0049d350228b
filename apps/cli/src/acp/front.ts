// `keel acp`: Keel as an Agent Client Protocol agent over stdio (JSON-RPC, one message a line), for
// editors (Zed, JetBrains, Neovim, Emacs). This front is its own small bundle (dist/acp.cjs, the ACP
// SDK and no kernel) so `initialize` is answered at once; the core (backend.ts) loads after it.
// stdout is the protocol's alone: everything else keel would print goes to stderr.
import { Readable, Writable } from "node:stream";
import {
  agent as acpAgent,
  type ClientCapabilities,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { parseCliArgs } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { guardExits, SIGNAL_EXIT } from "../exit-guard.js";
import type { AcpBackend, AcpSession } from "./backend.js";
import { isAcpFailure } from "./failure.js";

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

/** What is wrong with the command line, before anything starts; the rest is checked by the core. */
function flagProblem(argv: string[]): string | undefined {
  const problem = refused(argv);
  if (problem) return problem;
  const parsed = parseCliArgs(argv);
  if (parsed.isErr()) return `keel acp: ${parsed.error.message}`;
  if (parsed.value.kind !== "run" || parsed.value.flags.prompt !== undefined)
    return "keel acp takes flags only; prompts come from the editor.";
  return undefined;
}

/** The core's refusals as JSON-RPC errors; anything else is a bug, reported as such by the SDK. */
async function answering<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isAcpFailure(e)) throw new RequestError(e.code, e.message, e.data);
    throw e;
  }
}

/** Anything a dependency or extension prints must not land in the protocol's stream. */
function keepStdoutForTheProtocol(): void {
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
}

/**
 * `version`: keel's, as the bin read it. `loadBackend`: the core's side, loaded on first use (it is
 * started right after `initialize` is answered, so it is ready by the first session).
 */
export async function runAcp(
  argv: string[],
  version: string,
  loadBackend: () => AcpBackend,
): Promise<number> {
  if (argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  const problem = flagProblem(argv);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    return EXIT.usage;
  }
  keepStdoutForTheProtocol();
  let backend: AcpBackend | undefined;
  const core = (): AcpBackend => {
    backend ??= loadBackend();
    return backend;
  };
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};
  const session = (sessionId: string): AcpSession => {
    const found = sessions.get(sessionId);
    if (!found) throw RequestError.resourceNotFound(sessionId);
    return found;
  };
  const open = async (
    client: Parameters<AcpBackend["open"]>[0]["client"],
    params: Pick<Parameters<AcpBackend["open"]>[0], "cwd" | "mcpServers">,
    load?: string,
  ): Promise<AcpSession> => {
    // Loading (or resuming) a session this process holds open: it is closed first (the journal
    // has one writer).
    if (load !== undefined) {
      await sessions.get(load)?.close();
      sessions.delete(load);
    }
    const opened = await core().open({
      client,
      capabilities,
      cwd: params.cwd,
      mcpServers: params.mcpServers,
      ...(load !== undefined ? { load } : {}),
    });
    sessions.set(opened.id, opened);
    return opened;
  };

  const app = acpAgent({ name: "keel" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      // The answer goes out first; then the core is read, while the editor gets ready.
      setTimeout(core, 0);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "keel", title: "Keel", version },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true, audio: false },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", ({ params, client }) =>
      answering(async () => {
        const opened = await open(client, params);
        // After the answer: the client knows the session id by then.
        setImmediate(() => opened.announce());
        return { sessionId: opened.id, modes: opened.modes(), configOptions: opened.configOptions() };
      }),
    )
    .onRequest("session/load", ({ params, client }) =>
      answering(async () => {
        const opened = await open(client, params, params.sessionId);
        await opened.replay();
        opened.announce();
        await opened.flushed();
        return { modes: opened.modes(), configOptions: opened.configOptions() };
      }),
    )
    .onRequest("session/resume", ({ params, client }) =>
      answering(async () => {
        // As session/load, without the history: the client has it already.
        const opened = await open(
          client,
          { cwd: params.cwd, mcpServers: params.mcpServers ?? [] },
          params.sessionId,
        );
        opened.announce();
        await opened.flushed();
        return { modes: opened.modes(), configOptions: opened.configOptions() };
      }),
    )
    .onRequest("session/list", ({ params }) => answering(() => core().list(params)))
    .onRequest("session/close", ({ params }) =>
      answering(async () => {
        // Its run stops, as on session/cancel; then the journal is saved and its lock released.
        const closing = session(params.sessionId);
        sessions.delete(params.sessionId);
        closing.cancel();
        await closing.close();
        return {};
      }),
    )
    .onRequest("session/prompt", ({ params }) =>
      answering(() => session(params.sessionId).prompt(params.prompt)),
    )
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.cancel())
    .onRequest("session/set_mode", ({ params }) =>
      answering(() => {
        session(params.sessionId).setMode(params.modeId);
        return {};
      }),
    )
    .onRequest("session/set_config_option", ({ params }) =>
      answering(() => ({
        configOptions: session(params.sessionId).setConfigOption(params.configId, params.value),
      })),
    );

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
    killProcesses: () => backend?.killProcesses(),
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
    backend?.killProcesses();
  } finally {
    guard.dispose();
  }
  const stopped = guard.signal();
  return stopped ? SIGNAL_EXIT[stopped] : EXIT.ok;
}
