// The kernel's three seams into the agent loop.
// prepareRequest: compaction check, persisted notices, capability notice, then the one-request
//   synthetic context.
// beforeToolCall: resolve what runs (an ExecuteTool call runs its catalog entry), extension
//   policy (which may rewrite the arguments), the tool's declared precondition (a call bound to
//   fail fails before anyone is asked), the permission gate on what will actually run, then T1
//   under that identity.
// afterToolCall: extension patches, then T2 (only for a call that has a T1); a call admitted but
//   never run (aborted before it started) gets its T2 when the loop finishes it.
import type { AfterToolCall, AgentToolResult, BeforeToolCall, PrepareRequest } from "@keel/agent";
import { charsPerToken, type Message, type Model, type UserMessage } from "@keel/ai";
import type { ToolDeclaration } from "@keel/extension-sdk";
import type { FileVersion, Session } from "@keel/session";
import type { CompactionSettings } from "../compaction/policy.js";
import { compactionLimit } from "../compaction/policy.js";
import { estimateTextTokens } from "../compaction/tokens.js";
import { EXECUTE_TOOL, type IndexedEntry } from "../host/catalogs.js";
import type { HostView } from "../host/extension-host.js";
import { inventoryOf, noticeText, withToldKept } from "../host/inventory.js";
import {
  type DeclaredTool,
  declarationOf,
  isJournaled,
  roleValues,
  unmetPrecondition,
} from "../tools/declarations.js";
import { contentText } from "./agent-events.js";
import { contextTokens } from "./context-size.js";
import type { DenialInput } from "./denials.js";
import type { FileHistory } from "./file-history.js";
import type { PermissionDenialSource } from "./types.js";

/** What the gate judges: the identity that runs, as declared by the tool or catalog entry. */
export interface PermissionCall {
  /** A resident tool's name, or a catalog entry's `group:name`. */
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
  /** What the tool or entry declares (access, argument roles, preview); absent: undeclared. */
  declaration?: ToolDeclaration;
  /** Set for a catalog entry reached through ExecuteTool. */
  catalogEntry?: { group: string; name: string; bareName: boolean };
  /** "extension": the tool asks the user itself; the gate applies rules and modes only. */
  approval: "kernel" | "extension";
  /** Set when a child agent makes the call (its approvals name it). */
  agent?: { agentId: string; title: string };
}

/** Decides whether a tool call may run (permission modes, rules, approvals). */
export type ToolPermission = (
  call: PermissionCall,
) => Promise<
  { action: "continue" } | { action: "block"; reason: string; by?: PermissionDenialSource; stopRun?: boolean }
>;

export interface SeamContext {
  session(): Session;
  host(): HostView;
  model(): Model;
  settings: CompactionSettings;
  fixedTokens(): number;
  permission: ToolPermission;
  /** Set for a child agent's kernel. */
  agent?: { agentId: string; title: string };
  /** Compacts now; resolves false when it failed (the request goes out as it is). */
  compact(reason: "threshold", signal: AbortSignal): Promise<boolean>;
  /** The agent's history must follow the journal (compaction, notices). */
  syncHistory(messages: Message[]): void;
  /** Journals the persisted notices extensions left since the last request. */
  flushNotices(): Promise<void>;
  onNotice(text: string): void;
  report(message: string): void;
  /** Keeps the files Keel's file tools change (T1: before, T2: after), for code rewind. */
  files?: FileHistory;
  /** The user denied a call and asked to stop (`stopRun`): the run ends after this tool batch. */
  requestStop(): void;
  /** While a stop is pending: why the batch's later calls do not run. */
  stopping(): string | undefined;
  /** A call an extension's policy blocked (the gate reports its own blocks). */
  denied(denial: DenialInput): void;
  /** Takes known secrets out of a tool result before anything sees it (hooks, journal, model). */
  scrub?<T>(value: T): T;
  /** The files a finished call named in its declared path arguments (scoped rules listen). */
  touched?(paths: string[]): void;
}

export const SYNTHETIC_OPEN = "<system-reminder>";
export const SYNTHETIC_CLOSE = "</system-reminder>";

export function syntheticMessage(text: string): UserMessage {
  return {
    role: "user",
    content: `${SYNTHETIC_OPEN}\n${text}\n${SYNTHETIC_CLOSE}`,
    timestamp: Date.now(),
    synthetic: true,
  };
}

export function createPrepareRequest(k: SeamContext): PrepareRequest {
  return async (context, info) => {
    await k.host().notify("turnStart", { turn: info.turn });
    let messages = k.session().context();
    const limit = compactionLimit(k.model(), k.settings);
    if (contextTokens(k.session(), k.fixedTokens(), k.model()) > limit) {
      if (await k.compact("threshold", info.signal)) messages = k.session().context();
    }
    await k.flushNotices();
    messages = k.session().context();

    const host = k.host();
    if (!host.catalogs.isEmpty) {
      await host.catalogs.refresh();
      const told = k.session().fold().toldInventory;
      const views = withToldKept(told, host.catalogs.views());
      const text = noticeText(told, views);
      if (text) {
        const message: UserMessage = { role: "user", content: text, timestamp: Date.now() };
        const inventory = inventoryOf(views);
        // A group the model was told about that no longer exists is journaled empty, or the
        // fold would keep it as told and every later request would announce its removal again.
        for (const group of Object.keys(told)) inventory[group] ??= [];
        const appended = await k
          .session()
          .appendEntry({ type: "capability_notice", source: "catalogs", inventory, message });
        if (appended.isErr()) k.report(`Could not journal a capability notice: ${appended.error.message}`);
        else {
          messages = k.session().context();
          k.onNotice(text);
        }
      }
    }
    k.syncHistory(messages);

    const extra = await host.beforeModelCall(info.turn);
    if (!extra) return { ...context, messages: [...messages] };
    // A synthetic message that alone would cross the limit is dropped rather than overflowing.
    if (
      contextTokens(k.session(), k.fixedTokens(), k.model()) +
        estimateTextTokens(extra, charsPerToken(k.model())) >
      k.model().contextWindow
    )
      return { ...context, messages: [...messages] };
    return { ...context, messages: [...messages, syntheticMessage(extra)] };
  };
}

/**
 * The identity each admitted call runs under, and whether it wrote a T1 (only those get a T2).
 * Shared by the two tool seams of one kernel.
 */
export type BegunOperations = Map<
  string,
  { identity: string; t1: boolean; files?: string[]; declaration?: ToolDeclaration }
>;

export function createBeforeToolCall(k: SeamContext, begun: BegunOperations): BeforeToolCall {
  return async (call, info) => {
    const stopping = k.stopping();
    if (stopping) return { action: "block", reason: stopping };
    const host = k.host();
    let identity = call.name;
    let declaration = declarationOf(info.tool as DeclaredTool);
    let approval = host.approvalOf(call.name);
    let args = call.arguments;
    let catalogEntry: PermissionCall["catalogEntry"];
    let item: IndexedEntry | undefined;
    let redact: ((args: Record<string, unknown>) => Record<string, unknown>) | undefined;
    const via = call.name === EXECUTE_TOOL;
    if (via) {
      // An entry of a catalog still settling (a server connecting) is waited for, within its window.
      const target = await host.catalogs.locate(call.arguments, info.signal);
      // A toolRef that resolves to nothing runs nothing (ExecuteTool tells the model to search
      // again): nothing to judge, nothing to journal.
      if (!target.found || !target.executable) {
        host.catalogs.admit(call.id, target.found ? target.item : undefined);
        return { action: "continue" };
      }
      const entry = target.item.entry as ToolDeclaration & {
        sideEffects?: boolean;
        approval?: "kernel" | "extension";
        redact?: (args: Record<string, unknown>) => Record<string, unknown>;
      };
      item = target.item;
      identity = target.item.ref;
      redact = entry.redact?.bind(entry);
      declaration = declarationOf(entry);
      approval = entry.approval ?? "kernel";
      args = target.args;
      catalogEntry = { group: target.item.group, name: target.item.name, bareName: target.item.bareName };
    }

    const policy = await host.beforeToolCall({
      toolCallId: call.id,
      toolName: identity,
      args,
      ...(via ? { via: "ExecuteTool" as const } : {}),
      ...(k.agent ? { agent: k.agent } : {}),
    });
    if (policy.action === "block") {
      k.denied({
        toolCallId: call.id,
        toolName: identity,
        args,
        reason: policy.reason,
        by: "policy",
        ...(declaration ? { declaration } : {}),
      });
      return policy;
    }
    // A call bound to fail (an Edit of a file never read) fails now, before anyone is asked.
    const unmet = await unmetPrecondition(declaration, policy.args);
    if (unmet) return { action: "block", reason: unmet };
    // The gate judges what will actually run: the arguments after every rewrite.
    const permitted = await k.permission({
      toolName: identity,
      toolCallId: call.id,
      args: policy.args,
      ...(declaration ? { declaration } : {}),
      approval,
      ...(catalogEntry ? { catalogEntry } : {}),
      ...(k.agent ? { agent: k.agent } : {}),
    });
    if (permitted.action === "block") {
      if (permitted.stopRun) k.requestStop();
      return { action: "block", reason: permitted.reason, ...(permitted.by ? { by: permitted.by } : {}) };
    }
    // The run was aborted while this call waited (an approval answered too late): it will not
    // run, so nothing of it is journaled.
    if (info.signal.aborted) return { action: "block", reason: NOT_STARTED };
    const runArgs = via ? { ...call.arguments, arguments: policy.args } : policy.args;
    // What a write tool declares it changes: the files as they are now, so a rewind can put them back.
    const sideEffects = isJournaled(declaration);
    const files = sideEffects ? k.files?.before(declaration, policy.args) : undefined;
    if (sideEffects) {
      // What T1 keeps of the arguments: the entry's redact() for secrets; one that throws blocks
      // the call rather than journaling what it was meant to hide.
      let kept = policy.args;
      if (redact) {
        try {
          kept = redact(policy.args);
        } catch (e) {
          return {
            action: "block",
            reason: `Not run: ${identity} could not redact its arguments (${String(e)}).`,
          };
        }
      }
      // T1: durable before the tool touches anything, under the identity that runs.
      const t1 = await k.session().appendEntry({
        type: "op_begin",
        toolCallId: call.id,
        toolName: identity,
        args: kept,
        ...(files ? { files } : {}),
      });
      if (t1.isErr())
        return { action: "block", reason: `Not run: the session journal failed (${t1.error.message}).` };
      if (info.signal.aborted) {
        await endOperation(k, call.id, identity, "error", NOT_STARTED);
        return { action: "block", reason: NOT_STARTED };
      }
    }
    begun.set(call.id, {
      identity,
      t1: sideEffects,
      ...(declaration ? { declaration } : {}),
      ...(files ? { files: files.map((f) => f.path) } : {}),
    });
    // ExecuteTool runs the entry judged here, not whatever its toolRef resolves to by then.
    if (via) host.catalogs.admit(call.id, item);
    return { action: "continue", args: runArgs };
  };
}

export function createAfterToolCall(k: SeamContext, begun: BegunOperations): AfterToolCall {
  return async (call, raw) => {
    const result = k.scrub ? k.scrub(raw) : raw;
    const begin = begun.get(call.id);
    begun.delete(call.id);
    const via = call.name === EXECUTE_TOOL;
    const inner =
      via && typeof call.arguments.arguments === "object" && call.arguments.arguments !== null
        ? (call.arguments.arguments as Record<string, unknown>)
        : call.arguments;
    const patched = await k.host().afterToolCall({
      toolCallId: call.id,
      toolName: begin?.identity ?? call.name,
      args: inner,
      result,
      ...(via ? { via: "ExecuteTool" as const } : {}),
      ...(k.agent ? { agent: k.agent } : {}),
    });
    // A tool that asked the user itself (approval "extension") and was refused says so in its
    // result; it is a denial like the gate's, listed with the run's.
    const denial = (patched as { denial?: { reason?: unknown } }).denial;
    if (denial && typeof denial.reason === "string")
      k.denied({
        toolCallId: call.id,
        toolName: begin?.identity ?? call.name,
        args: inner,
        reason: denial.reason,
        by: "policy",
        ...(begin?.declaration ? { declaration: begin.declaration } : {}),
      });
    if (k.touched && begin?.declaration?.args?.paths && !patched.isError) {
      const paths = roleValues(inner, begin.declaration.args.paths);
      if (paths.length > 0) k.touched(paths);
    }
    if (begin?.t1) {
      // The files as the tool left them: the versions a code rewind can move forward to again.
      const after = begin.files && !patched.isError ? k.files?.after(begin.files) : undefined;
      await endOperation(
        k,
        call.id,
        begin.identity,
        patched.isError ? "error" : "ok",
        contentText(patched.content),
        after,
      );
    }
    return patched;
  };
}

/**
 * For every call the loop finished (tool_execution_end): one admitted by beforeToolCall that never
 * reached afterToolCall did not run (aborted before it started, rewritten arguments refused), so
 * its T1 gets a T2 saying so — an open T1 would tell a resumed session to verify an outcome there
 * never was.
 */
export function createSettleUnstarted(
  k: Pick<SeamContext, "session" | "host" | "report">,
  begun: BegunOperations,
): (toolCallId: string, result: AgentToolResult) => Promise<void> {
  return async (toolCallId, result) => {
    k.host().catalogs.forget(toolCallId);
    const begin = begun.get(toolCallId);
    if (!begin) return;
    begun.delete(toolCallId);
    if (begin.t1) await endOperation(k, toolCallId, begin.identity, "error", contentText(result.content));
  };
}

const NOT_STARTED = "Not run: the run was aborted before this tool call started.";

/** T2: the outcome of a call that has a T1. */
async function endOperation(
  k: Pick<SeamContext, "session" | "report">,
  toolCallId: string,
  identity: string,
  outcome: "ok" | "error",
  text: string,
  files?: readonly FileVersion[],
): Promise<void> {
  const t2 = await k.session().appendEntry({
    type: "op_end",
    toolCallId,
    outcome,
    summary: text.slice(0, 200),
    ...(files ? { files: [...files] } : {}),
  });
  if (t2.isErr()) k.report(`Could not journal the outcome of ${identity}: ${t2.error.message}`);
}
