// The stdio transport: the SDK's StdioClientTransport, with the server's stderr appended to a
// per-server log (never the user's terminal) and, on shutdown, its whole process tree ended.
import { createWriteStream, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StdioServerSpec } from "../config/servers.js";
import { killTree, processTree, waitForExit } from "./process-tree.js";

/** A log past this size is moved to `<name>.log.1` when the next process starts. */
const MAX_LOG_BYTES = 1024 * 1024;

export interface StdioHandle {
  transport: StdioClientTransport;
  /**
   * Ends the server as the spec asks: its stdin is closed (by `close`), then after `graceMs`
   * SIGTERM and SIGKILL to whatever of its tree is left, including children that outlived it.
   */
  shutdown(close: () => Promise<void>, graceMs: number): Promise<void>;
}

function openLog(logFile: string, spec: StdioServerSpec) {
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

export function openStdio(spec: StdioServerSpec, logFile: string): StdioHandle {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd,
    stderr: "pipe",
  });
  const log = openLog(logFile, spec);
  // Available before start(), so nothing the server prints while starting is lost.
  (transport.stderr as Readable | null)?.pipe(log);
  return {
    transport,
    async shutdown(close, graceMs) {
      const root = transport.pid;
      if (root === null) {
        await close();
        return;
      }
      const tree = processTree(root);
      const closing = close();
      const stillRunning = await waitForExit([root], graceMs);
      await killTree(stillRunning.length > 0 ? tree : tree.slice(1), graceMs);
      await closing;
    },
  };
}
