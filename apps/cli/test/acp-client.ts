// An editor for the tests: the ACP SDK's client app driving the built `keel acp` over its stdio,
// answering permission requests and file reads and writes the way an editor would, and keeping
// everything it was sent.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  type InitializeResponse,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { BIN, childEnv, type KeelEnv } from "./helpers.js";

export interface Editor {
  child: ChildProcess;
  connection: ClientConnection;
  /** keel's answer to initialize. */
  initialized: InitializeResponse;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  reads: string[];
  writes: { path: string; content: string }[];
  stderr(): string;
  /** The updates of one kind, in the order they came. */
  of<K extends SessionUpdate["sessionUpdate"]>(kind: K): Extract<SessionUpdate, { sessionUpdate: K }>[];
  /** Closes stdin (as an editor quitting does) and waits for keel to exit. */
  quit(): Promise<number | null>;
}

export interface EditorOptions extends KeelEnv {
  capabilities?: ClientCapabilities;
  /** The answer to each permission request; default the first "allow once" option. */
  answer?: (request: RequestPermissionRequest) => RequestPermissionResponse;
  /** Answers elicitation forms (declare `elicitation.form` in the capabilities too). */
  elicit?: (request: CreateElicitationRequest) => CreateElicitationResponse;
  /** The text of a file as the editor has it (an unsaved buffer); default the disk's. */
  read?: (path: string) => string;
  args?: string[];
}

const allowOnce = (request: RequestPermissionRequest): RequestPermissionResponse => {
  const once = request.options.find((o) => o.kind === "allow_once");
  return once
    ? { outcome: { outcome: "selected", optionId: once.optionId } }
    : { outcome: { outcome: "cancelled" } };
};

export const EDITOR_CAPABILITIES: ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: false,
};

export async function openEditor(options: EditorOptions): Promise<Editor> {
  const child = spawn(process.execPath, [BIN, "acp", ...(options.args ?? [])], {
    env: childEnv(options),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const reads: string[] = [];
  const writes: { path: string; content: string }[] = [];
  const app = client({ name: "keel-tests" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      return (options.answer ?? allowOnce)(params);
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params.path);
      return { content: options.read ? options.read(params.path) : readFileSync(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      writes.push({ path: params.path, content: params.content });
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest("elicitation/create", ({ params }) => {
      if (!options.elicit) throw new Error("this editor was not asked to answer forms");
      return options.elicit(params);
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  const initialized = await connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: options.capabilities ?? EDITOR_CAPABILITIES,
    clientInfo: { name: "keel-tests", version: "1.0.0" },
  });
  return {
    child,
    connection,
    initialized,
    updates,
    permissions,
    reads,
    writes,
    stderr: () => stderr,
    of: (kind) => updates.map((u) => u.update).filter((u) => u.sessionUpdate === kind) as never,
    quit: async () => {
      child.stdin!.end();
      return exited;
    },
  };
}

/** Host pids of live processes whose command line holds `token` as an argument. */
export function processesWith(token: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        if (!readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(token)) return false;
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
      } catch {
        return false;
      }
    })
    .map(Number);
}
