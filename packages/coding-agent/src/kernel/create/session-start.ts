// Creation's last step: what the ready session says once — the model choice journaled, a new
// day's date as a notice, a thinking level the model takes otherwise, the sandbox's state (when
// known) — then sessionStart for extensions and the host.
import type { Model, ThinkingLevel } from "@keel/ai";
import type { Session } from "@keel/session";
import type { ExtensionHost } from "../../host/extension-host.js";
import { type CommandSandbox, sandboxNotice } from "../../sandbox/runtime.js";
import type { KernelAgent } from "../coding-agent.js";
import type { OpenedSession } from "../session-open.js";
import { remapNote } from "../thinking.js";
import type { PermissionModeName } from "../types.js";
import { journalModelChoice } from "./model.js";

export async function announceSessionStart(
  kernel: KernelAgent,
  start: {
    session: Session;
    reason: OpenedSession["reason"];
    folded: ReturnType<Session["fold"]>["model"];
    model: Model;
    thinking: ThinkingLevel | undefined;
    mode: PermissionModeName;
    sandbox: CommandSandbox;
    host: ExtensionHost;
    toolNames: string[];
  },
): Promise<void> {
  const { session, model, mode, sandbox, host } = start;
  await journalModelChoice(session, start.folded, model, start.thinking, (level, message) =>
    kernel.report(level, message),
  );
  const { date } = session.environment;
  const today = new Date().toISOString().slice(0, 10);
  if (today !== date && !session.readOnly)
    kernel.persistNotice("kernel", `Today's date is ${today} (this session began on ${date}).`, {
      key: `date:${today}`,
    });
  // A level asked for (--thinking) or kept from the session that this model cannot take as it is.
  const remapped = remapNote(kernel.thinking());
  if (remapped) kernel.report("info", remapped);
  // The probe (two bubblewrap starts, tens of ms on a busy machine) must not hold up the first
  // request: it begins on the event loop's next turn (a print run has written its first request by
  // then: the start up to it is one chain of microtasks) or at the first command, whichever comes
  // first, and its one line is said once it is known. Every command waits for the probe itself
  // (confine) and fails closed without a sandbox.
  void sandbox
    .probed()
    .then(() => sandbox.state(mode))
    .then((state) => {
      const said = sandboxNotice(state, mode);
      if (said) kernel.report(said.level, said.message);
    });
  setImmediate(() => void sandbox.availability());
  await host.notify("sessionStart", { reason: start.reason, sessionId: session.id });
  kernel.emit({
    type: "session_start",
    sessionId: session.id,
    ...(kernel.sessionFile ? { sessionFile: kernel.sessionFile } : {}),
    model: `${model.provider}/${model.id}`,
    tools: start.toolNames,
  });
}
