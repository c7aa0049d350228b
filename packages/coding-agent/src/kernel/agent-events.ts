// Turns agent-loop events into journal entries, observer hooks and UI events. The one place
// where the loop's view of a run meets the session's and the extensions'.
import type { AgentEvent } from "@keel/agent";
import type { ImageContent, Message, TextContent } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import type { HostView } from "../host/extension-host.js";
import type { CodingAgentEvent, ToolCallInfo } from "./types.js";

export interface EventBridgeContext {
  session(): Session;
  host(): HostView;
  emit(event: CodingAgentEvent): void;
  report(level: Diagnostic["level"], message: string): void;
  /** A call's one line and declared access, from its tool's declaration. */
  describeCall(toolName: string, args: Record<string, unknown>): ToolCallInfo;
  /** Takes known secrets out of a tool's streamed output and details (its final result is scrubbed in afterToolCall). */
  scrub?<T>(value: T): T;
}

export function contentText(content: readonly (TextContent | ImageContent)[]): string {
  return content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
}

export function createAgentEventBridge(k: EventBridgeContext): (event: AgentEvent) => void {
  let turn = 0;
  /** Whether the current model call's response has begun to arrive (its first content event). */
  let responding = false;
  const journal = (message: Message) => {
    // The write itself is synchronous; only its outcome arrives later.
    void k
      .session()
      .appendMessage(message)
      .then((r) => {
        if (r.isErr()) k.report("error", `Session journal write failed: ${r.error.message}`);
      });
  };

  return (event) => {
    switch (event.type) {
      case "turn_start":
        turn = event.turn;
        k.emit({ type: "turn_start", turn: event.turn });
        break;
      case "message_start":
        if (event.message.role === "assistant") responding = false;
        k.emit({ type: "message_start", message: event.message });
        break;
      case "message_update":
        if (!responding && event.assistantEvent.type !== "retry") {
          // The stream's own start comes before the request; its first content means it is out.
          responding = true;
          void k.host().notify("modelResponseStart", { turn });
        }
        if (event.assistantEvent.type === "retry") {
          const e = event.assistantEvent;
          k.emit({
            type: "retry",
            attempt: e.attempt,
            maxRetries: e.maxRetries,
            delayMs: e.delayMs,
            message: e.error.message,
            error: e.error,
          });
        } else k.session().checkpoint(event.message);
        k.emit({ type: "message_update", message: event.message, event: event.assistantEvent });
        break;
      case "message_end":
        journal(event.message);
        k.emit({ type: "message_end", message: event.message });
        void k.host().notify("messageEnd", { message: event.message });
        if (event.message.role === "assistant")
          void k.host().notify("afterModelCall", { turn, message: event.message });
        break;
      case "tool_execution_start":
        k.emit({
          type: "tool_start",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          args: event.args,
          ...k.describeCall(event.toolName, event.args),
        });
        break;
      case "tool_execution_update":
        k.emit({
          type: "tool_update",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          text: k.scrub ? k.scrub(contentText(event.partial.content)) : contentText(event.partial.content),
          ...(event.partial.details !== undefined
            ? { details: k.scrub ? k.scrub(event.partial.details) : event.partial.details }
            : {}),
        });
        break;
      case "tool_execution_end":
        k.emit({
          type: "tool_end",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          isError: event.isError,
          text: contentText(event.result.content),
          ...(event.result.details !== undefined ? { details: event.result.details } : {}),
        });
        break;
      case "turn_end":
        void k.session().sync();
        void k.host().notify("turnEnd", { turn: event.turn, message: event.message });
        k.emit({ type: "turn_end", turn: event.turn });
        break;
      default:
        break;
    }
  };
}
