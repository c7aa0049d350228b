// The stdio transport: the server runs in a process group of its own (POSIX), with its stderr
// appended to a per-server log (never the user's terminal); shutting it down — at any moment, the
// handshake included — closes its stdin, then signals the whole group (and any child that left
// it), SIGTERM then SIGKILL, all within about a second.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, renameSync, statSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioServerSpec } from "../config/servers.js";
import { endProcesses, processTree, waitForExit } from "./process-tree.js";

/** A log past this size is moved to `<name>.log.1` when the next process starts. */
const MAX_LOG_BYTES = 1024 * 1024;
/** Each shutdown step's wait: after stdin is closed, after SIGTERM, after SIGKILL. */
export const DEFAULT_SHUTDOWN_STEP_MS = 300;

export interface StdioHandle {
  transport: Transport & { readonly pid: number | null };
  /**
   * Ends the server as the spec asks: its stdin is closed (by `close`), then after `stepMs`
   * SIGTERM and SIGKILL to whatever of its group and tree is left, children that outlived it too.
   */
  shutdown(close: () => Promise<void>, stepMs?: number): Promise<void>;
}

function openLog(logFile: string, spec: StdioServerSpec): WriteStream {
  mkdirSync(dirname(logFile), { recursive: true });
  try {
    if (statSync(logFile).size > MAX_LOG_BYTES) renameSync(logFile, `${logFile}.1`);
  } catch {
    // no log yet
  }
  const log = createWriteStream(logFile, { flags: "a", mode: 0o600 });
  log.on("error", () => {}); // a full disk must not take the session down
  log.write(`--- ${new Date().toISOString()} start: ${[spec.command, ...spec.args].join(" ")}\n`);
  return log;
}

/** The SDK's line framing over a child that leads its own process group. */
class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private ended = false;

  constructor(
    private readonly spec: StdioServerSpec,
    private readonly log: WriteStream,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("the stdio transport was already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, {
        env: { ...getDefaultEnvironment(), ...this.spec.env },
        cwd: this.spec.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.buffer.clear();
        if (!this.ended) {
          this.ended = true;
          this.onclose?.();
        }
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
            this.onmessage?.(message);
        } catch (error) {
          this.onerror?.(error as Error);
        }
      });
      (child.stderr as Readable | null)?.pipe(this.log);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin?.writable) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes the server's stdin; the signals are the handle's (it knows when to send them). */
  async close(): Promise<void> {
    try {
      this.child?.stdin?.end();
    } catch {
      // already closed
    }
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) {
      if (!this.ended) {
        this.ended = true;
        this.onclose?.();
      }
    }
  }
}

export function openStdio(spec: StdioServerSpec, logFile: string): StdioHandle {
  const log = openLog(logFile, spec);
  const group = process.platform !== "win32";
  let transport: StdioHandle["transport"];
  if (group) transport = new GroupStdioTransport(spec, log);
  else {
    // Windows has no process groups to lead: the SDK's transport, the tree ended with taskkill.
    const sdk = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      stderr: "pipe",
    });
    // Available before start(), so nothing the server prints while starting is lost.
    (sdk.stderr as Readable | null)?.pipe(log);
    transport = sdk;
  }
  return {
    transport,
    async shutdown(close, stepMs = DEFAULT_SHUTDOWN_STEP_MS) {
      const root = transport.pid;
      if (root === null) {
        await close();
        return;
      }
      const tree = processTree(root);
      const closing = close().catch(() => {});
      // Given stdin's end, a well-behaved server is gone within the first step; either way the
      // group is signalled, since children it left behind would otherwise outlive Keel.
      await waitForExit(tree.slice(0, 1), stepMs);
      await endProcesses(tree, group ? root : undefined, stepMs);
      await closing;
    },
  };
}
