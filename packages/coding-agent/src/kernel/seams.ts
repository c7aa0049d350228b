// The kernel's three seams into the agent loop. prepareRequest: compaction check, capability
// notice, then the one-request synthetic context. beforeToolCall: permissions, extension policy,
// then T1. afterToolCall: extension patches, then T2.
import type { AfterToolCall, BeforeToolCall, PrepareRequest } from "@keel/agent";
import type { Message, Model, UserMessage } from "@keel/ai";
import type { Session } from "@keel/session";
import type { CompactionSettings } from "../compaction/policy.js";
import { compactionLimit } from "../compaction/policy.js";
import { estimateTextTokens } from "../compaction/tokens.js";
import { EXECUTE_TOOL } from "../host/catalogs.js";
import type { ExtensionHost } from "../host/extension-host.js";
import { noticeText } from "../host/inventory.js";
import { contextTokens } from "./context-size.js";

/** Decides whether a tool call may run (permission modes, rules, approvals). */
export type ToolPermission = (request: {
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
  sideEffects: boolean;
}) => Promise<{ action: "continue" } | { action: "block"; reason: string }>;

export interface SeamContext {
  session(): Session;
  host(): ExtensionHost;
  model(): Model;
  settings: CompactionSettings;
  fixedTokens(): number;
  permission: ToolPermission;
  /** Compacts now; resolves false when it failed (the request goes out as it is). */
  compact(reason: "threshold", signal: AbortSignal): Promise<boolean>;
  /** The agent's history must follow the journal (compaction, notices). */
  syncHistory(messages: Message[]): void;
  onNotice(text: string): void;
  report(message: string): void;
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
    if (contextTokens(k.session(), k.fixedTokens()) > limit) {
      if (await k.compact("threshold", info.signal)) messages = k.session().context();
    }

    const host = k.host();
    if (!host.catalogs.isEmpty) {
      await host.catalogs.refresh();
      const current = host.catalogs.inventory();
      const told = k.session().fold().toldInventory;
      const text = noticeText(told, current);
      if (text) {
        const message: UserMessage = { role: "user", content: text, timestamp: Date.now() };
        // A group the model was told about that no longer exists is journaled empty, or the
        // fold would keep it as told and every later request would announce its removal again.
        const inventory = { ...current };
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
    const sent = extra ? [...messages, syntheticMessage(extra)] : [...messages];
    // A synthetic message that alone would cross the limit is dropped rather than overflowing.
    if (
      extra &&
      contextTokens(k.session(), k.fixedTokens()) + estimateTextTokens(extra) > k.model().contextWindow
    ) {
      return { ...context, messages: [...messages] };
    }
    return { ...context, messages: sent };
  };
}

export function createBeforeToolCall(k: SeamContext): BeforeToolCall {
  return async (call, info) => {
    const host = k.host();
    if (call.name === EXECUTE_TOOL) await host.catalogs.refresh();
    const target = call.name === EXECUTE_TOOL ? host.catalogs.target(call.arguments) : undefined;
    // An ExecuteTool call whose toolRef resolves to nothing runs nothing: let it through to tell
    // the model to search again, rather than asking permission for it.
    if (call.name === EXECUTE_TOOL && !target) return { action: "continue" };
    const sideEffects = target ? target.sideEffects : (info.tool.sideEffects ?? false);
    const permitted = await k.permission({
      toolName: target?.name ?? call.name,
      toolCallId: call.id,
      args: target?.args ?? call.arguments,
      sideEffects,
    });
    if (permitted.action === "block") return permitted;
    const policy = await host.beforeToolCall({
      toolCallId: call.id,
      toolName: call.name,
      args: call.arguments,
    });
    if (policy.action === "block") return policy;
    if (sideEffects) {
      // T1: durable before the tool touches anything.
      const t1 = await k
        .session()
        .appendEntry({ type: "op_begin", toolCallId: call.id, toolName: call.name, args: policy.args });
      if (t1.isErr())
        return { action: "block", reason: `Not run: the session journal failed (${t1.error.message}).` };
    }
    return { action: "continue", args: policy.args };
  };
}

export function createAfterToolCall(k: SeamContext): AfterToolCall {
  return async (call, result, info) => {
    const patched = await k.host().afterToolCall({
      toolCallId: call.id,
      toolName: call.name,
      args: call.arguments,
      result,
    });
    const target = call.name === EXECUTE_TOOL ? k.host().catalogs.target(call.arguments) : undefined;
    const sideEffects = target ? target.sideEffects : (info.tool.sideEffects ?? false);
    if (sideEffects) {
      const text = patched.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
      const t2 = await k.session().appendEntry({
        type: "op_end",
        toolCallId: call.id,
        outcome: patched.isError ? "error" : "ok",
        summary: text.slice(0, 200),
      });
      if (t2.isErr()) k.report(`Could not journal the outcome of ${call.name}: ${t2.error.message}`);
    }
    return patched;
  };
}
