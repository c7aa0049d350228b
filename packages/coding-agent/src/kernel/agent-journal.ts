// A child agent in the journals: its own session (linked to the parent's), the start and end the
// parent's journal keeps of it, the records folded from those, and the ends journaled after a
// resume for children that were running when the process died.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssistantMessage, addUsage, emptyUsage } from "@keel/ai";
import type { AgentRecord, AgentRun, AgentRunResult } from "@keel/extension-sdk";
import { type AgentRunOutcome, createSession, openSession, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { Caller } from "../host/runtime.js";
import type { KernelAgent } from "./coding-agent.js";

/** What the parent's journal keeps of a child's final text; the whole transcript is in its own journal. */
const KEPT_TEXT_CHARS = 20_000;

export interface ChildSession {
  session: Session;
  file: string | undefined;
  cleanup: () => void;
}

export function lastText(messages: readonly { role: string }[]): string {
  const last = [...messages].reverse().find((m) => m.role === "assistant") as AssistantMessage | undefined;
  return last ? last.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("") : "";
}

/** The child's own journal: in `childrenDir()`, or in a temp folder removed at its end when the parent is ephemeral. */
export async function openChildSession(
  d: { parent: KernelAgent; cwd: string; childrenDir(): string | undefined },
  agent: { agentId: string },
  caller: Caller,
): Promise<Result<ChildSession, { type: "journal"; message: string }>> {
  const parent = d.parent;
  const persistent = d.childrenDir();
  const dir = persistent ?? mkdtempSync(join(tmpdir(), "keel-child-"));
  const created = await createSession({
    dir,
    cwd: d.cwd,
    // The parent's: a child's prompt says what the parent's says.
    environment: parent.session.environment,
    fsync: persistent ? "turn" : "never",
    syncCreate: false,
    spawnedBy: {
      sessionId: parent.sessionId,
      ...(parent.sessionFile ? { path: parent.sessionFile } : {}),
      agentId: agent.agentId,
      ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
    },
  });
  if (created.isErr())
    return err({
      type: "journal",
      message: `Could not create the child's journal: ${created.error.message}`,
    });
  return ok({
    session: created.value,
    file: persistent ? created.value.path : undefined,
    cleanup: () => {
      if (!persistent) rmSync(dir, { recursive: true, force: true });
    },
  });
}

export async function journalEnd(
  parent: KernelAgent,
  agent: { agentId: string; title: string },
  sessionId: string,
  sessionFile: string | undefined,
  result: AgentRunResult,
): Promise<void> {
  const outcome: AgentRunOutcome = {
    status: result.status,
    stopReason: result.stopReason,
    text: result.text.length > KEPT_TEXT_CHARS ? `${result.text.slice(0, KEPT_TEXT_CHARS)}…` : result.text,
    turns: result.turns,
    usage: result.usage,
    durationMs: result.durationMs,
    model: result.model,
    ...(result.error ? { error: result.error } : {}),
  };
  const appended = await parent.session.appendEntry({
    type: "agent_run",
    agentId: agent.agentId,
    phase: "end",
    title: agent.title,
    sessionId,
    ...(sessionFile ? { sessionFile } : {}),
    outcome,
  });
  if (appended.isErr())
    parent.report("error", `Could not journal how agent ${agent.agentId} ended: ${appended.error.message}`);
}

/**
 * Every child the journal knows, with the live ones' current status; a child that was running
 * when the process died is "interrupted", with the text `interruptedText` kept of it.
 */
export function agentRecords(
  parent: KernelAgent,
  live: ReadonlyMap<string, { run: AgentRun; record: AgentRecord }>,
  interruptedText: ReadonlyMap<string, string>,
): AgentRecord[] {
  const folded = parent.session.fold().agents;
  return Object.values(folded).map((a) => {
    const running = live.get(a.agentId);
    if (running) return { ...running.record, status: running.run.status() };
    const base: AgentRecord = {
      agentId: a.agentId,
      title: a.title,
      sessionId: a.sessionId,
      ...(a.sessionFile ? { sessionFile: a.sessionFile } : {}),
      ...(a.toolCallId ? { toolCallId: a.toolCallId } : {}),
      startedAt: a.startedAt,
      status: a.outcome?.status ?? "interrupted",
    };
    const outcome = a.outcome;
    const result: AgentRunResult = {
      agentId: a.agentId,
      title: a.title,
      status: outcome?.status ?? "interrupted",
      stopReason: (outcome?.stopReason ?? "interrupted") as AgentRunResult["stopReason"],
      text: outcome?.text ?? interruptedText.get(a.agentId) ?? "",
      turns: outcome?.turns ?? 0,
      usage: outcome?.usage ?? emptyUsage(),
      durationMs: outcome?.durationMs ?? 0,
      model: outcome?.model ?? "",
      sessionId: a.sessionId,
      ...(a.sessionFile ? { sessionFile: a.sessionFile } : {}),
      ...(outcome?.error ? { error: outcome.error } : {}),
    };
    return { ...base, result };
  });
}

/**
 * After a resume: a child the journal saw start but never end was running when the process
 * died. Its end is journaled now as "interrupted", with the last text its own journal holds
 * (also set in `interruptedText`).
 */
export async function settleInterrupted(
  parent: KernelAgent,
  isLive: (agentId: string) => boolean,
  interruptedText: Map<string, string>,
): Promise<void> {
  for (const a of Object.values(parent.session.fold().agents)) {
    if (a.outcome || isLive(a.agentId)) continue;
    let text = "";
    let turns = 0;
    let usage = emptyUsage();
    if (a.sessionFile) {
      const opened = await openSession(a.sessionFile, { readOnly: true });
      if (opened.isOk()) {
        const messages = opened.value.context();
        text = lastText(messages);
        for (const m of messages)
          if (m.role === "assistant") {
            turns++;
            usage = addUsage(usage, (m as AssistantMessage).usage);
          }
        await opened.value.close();
      }
    }
    interruptedText.set(a.agentId, text);
    await journalEnd(parent, a, a.sessionId, a.sessionFile, {
      agentId: a.agentId,
      title: a.title,
      status: "interrupted",
      stopReason: "interrupted",
      text,
      turns,
      usage,
      durationMs: 0,
      model: "",
      sessionId: a.sessionId,
      error: { type: "interrupted", message: "Keel stopped while this agent was running." },
    });
  }
}
