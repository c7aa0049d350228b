// A session's session/update notifications: sent in order (a prompt's answer waits for them), the
// kernel's events turned into them (message and thought chunks, tool calls, the plan), and the
// tool calls the editor knows of with what each showed when it started.
import type { AgentContext, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { CodingAgent, CodingAgentEvent } from "@keel/coding-agent";
import type { TodoState } from "@keel/ext-todo";
import {
  callContent,
  progressContent,
  resultContent,
  type ToolCallFacts,
  toolKind,
  toolLocations,
  toolTitle,
} from "./tool-calls.js";

type Agent = Pick<CodingAgent, "cwd" | "extensionState">;

export class SessionUpdates {
  readonly #client: AgentContext;
  readonly #sessionId: () => string;
  readonly #calls = new Map<string, { facts: ToolCallFacts; started: ToolCallContent[] }>();
  #sent: Promise<void> = Promise.resolve();
  #lastPlan = "";

  constructor(client: AgentContext, sessionId: () => string) {
    this.#client = client;
    this.#sessionId = sessionId;
  }

  send(update: SessionUpdate): void {
    const sessionId = this.#sessionId();
    this.#sent = this.#sent
      .then(() => this.#client.notify("session/update", { sessionId, update }))
      .catch(() => undefined);
  }

  /** Everything sent so far has been written. */
  flushed(): Promise<void> {
    return this.#sent;
  }

  /** A session reopened (trust): its calls are the old agent's. */
  forgetCalls(): void {
    this.#calls.clear();
  }

  /** What a call showed when it started (its diff), if the editor knows it. */
  started(toolCallId: string): ToolCallContent[] | undefined {
    return this.#calls.get(toolCallId)?.started;
  }

  /** Tells the editor of a call, unless it knows it already. */
  call(agent: Agent, facts: ToolCallFacts, toolCallId: string, status: "pending" | "in_progress"): void {
    if (this.#calls.has(toolCallId)) {
      this.send({ sessionUpdate: "tool_call_update", toolCallId, status });
      return;
    }
    const started = callContent(facts, agent.cwd);
    this.#calls.set(toolCallId, { facts, started });
    this.send({
      sessionUpdate: "tool_call",
      toolCallId,
      title: toolTitle(facts),
      kind: toolKind(facts),
      status,
      locations: toolLocations(facts, agent.cwd),
      rawInput: facts.args,
      ...(started.length > 0 ? { content: started } : {}),
    });
  }

  /** The todo list as the plan, when it changed. */
  plan(agent: Agent): void {
    const state = agent.extensionState("todo") as TodoState | undefined;
    const entries = (state?.todos ?? []).map((t: TodoState["todos"][number]) => ({
      content: t.content,
      status: t.status,
      priority: "medium" as const,
    }));
    const key = JSON.stringify(entries);
    if (key === this.#lastPlan) return;
    this.#lastPlan = key;
    this.send({ sessionUpdate: "plan", entries });
  }

  event(agent: Agent, event: CodingAgentEvent): void {
    switch (event.type) {
      case "message_update": {
        const e = event.event;
        if (e.type === "text_delta")
          this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.delta } });
        else if (e.type === "thinking_delta")
          this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: e.delta } });
        return;
      }
      case "tool_start":
        // Tool-start events will carry the tool's declared access and summary; they win then.
        this.call(agent, { ...event, ...(event as Partial<ToolCallFacts>) }, event.toolCallId, "in_progress");
        return;
      case "tool_update": {
        const call = this.#calls.get(event.toolCallId);
        const content = call ? progressContent(call.facts, event.text) : [];
        if (content.length > 0)
          this.send({ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, content });
        return;
      }
      case "tool_end": {
        const call = this.#calls.get(event.toolCallId);
        const facts = call?.facts ?? { toolName: event.toolName, args: {} };
        this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          status: event.isError ? "failed" : "completed",
          content: resultContent(facts, call?.started ?? [], event),
          rawOutput: { text: event.text, isError: event.isError },
        });
        return;
      }
      case "permission_denied":
        this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: event.reason } }],
        });
        return;
      case "widget":
        // Any widget may be the todo list's; plan() reads its state and sends only a change (the
        // core keeps the todo extension's code out of its bundle, so no widget key is imported).
        this.plan(agent);
        return;
      case "run_end":
      case "session_start":
        this.plan(agent);
        return;
      default:
        return;
    }
  }
}
