// The core's side of `keel acp`: composing the kernel options from the command line once, opening
// sessions, ending the processes their commands started. The protocol front (front.ts, a bundle
// of its own) loads this only when the first session is asked for, so `initialize` is answered
// before the kernel is even read.
import type { ListSessionsRequest, ListSessionsResponse } from "@agentclientprotocol/sdk";
import { type CodingAgentOptions, killAllCommandTrees, resolveKeelHome } from "@keel/coding-agent";
import { parseCliArgs } from "../args.js";
import { bundledExtensions } from "../bundled-extensions.js";
import { composeOptions } from "../compose.js";
import { AcpFailure } from "./failure.js";
import { listResponse } from "./listing.js";
import { AcpSession, type SessionSetup } from "./session.js";

export interface AcpBackend {
  /** Throws an AcpFailure when the session cannot be opened (or keel's flags are wrong). */
  open(setup: Omit<SessionSetup, "base">): Promise<AcpSession>;
  /** session/list: Keel's sessions of a folder (or of all), without opening any. */
  list(params: ListSessionsRequest): ListSessionsResponse;
  killProcesses(): void;
}

export type { AcpSession };

export function acpBackend(argv: string[]): AcpBackend {
  let base: CodingAgentOptions | undefined;
  const options = (): CodingAgentOptions => {
    if (base) return base;
    const parsed = parseCliArgs(argv);
    if (parsed.isErr() || parsed.value.kind !== "run") throw AcpFailure.internal("keel acp: bad flags.");
    const composed = composeOptions(parsed.value.flags, process.cwd(), process.env, bundledExtensions);
    if (composed.isErr()) throw AcpFailure.internal(`keel acp: ${composed.error.message}`);
    base = composed.value;
    return base;
  };
  return {
    open: async (setup) => {
      const opened = await AcpSession.open({ ...setup, base: options() });
      if (opened.isErr()) throw opened.error;
      return opened.value;
    },
    list: (params) => listResponse(options().home ?? resolveKeelHome(), params),
    killProcesses: killAllCommandTrees,
  };
}
