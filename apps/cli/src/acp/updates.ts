// A session's session/update notifications: sent in order (a prompt's answer waits for them), the
// kernel's events turned into them (message and thought chunks, tool calls — its child agents'
// too — the plan), and the tool calls the editor knows of with what each showed when it started.
import type { AgentContext, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { CodingAgent, CodingAgentEvent } from "@keel/coding-agent";
import type { TodoState } from "@keel/ext-todo";
import {
  callContent,
  progressContent,
  replacedFile,
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
  /** Each call's facts, and what it showed when it started (a diff whose "before" may be read first). */
  readonly #calls = new Map<string, { facts: ToolCallFacts; started: Promise<ToolCallContent[]> }>();
  /** Child agents by id: the parent's tool call that started each, when one did. */
  readonly #children = new Map<string, string | undefined>();
  #sent: Promise<void> = Promise.resolve();
  #lastPlan = "";

  readonly #readBefore: (path: string) => Promise<string | null>;

  /** `readBefore`: the text a whole-file write replaces (the editor's buffer when it reads files). */
  constructor(
    client: AgentContext,
    sessionId: () => string,
    readBefore: (path: string) => Promise<string | null>,
  ) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#readBefore = readBefore;
  }

  /** Sent after everything before it, even when it is still being made (a file read first). */
  send(update: SessionUpdate | Promise<SessionUpdate>): void {
    const sessionId = this.#sessionId();
    this.#sent = this.#sent
      .then(async () => this.#client.notify("session/update", { sessionId, update: await update }))
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
  started(toolCallId: string): Promise<ToolCallContent[]> | undefined {
    return this.#calls.get(toolCallId)?.started;
  }

  /**
   * Tells the editor of a call, unless it knows it already. A child agent's call (`child`) has an id
   * of its own (`<agent id>:<call id>`, as its approvals), its agent's title before its own, and
   * in `_meta.keel` the agent and the parent's call that started it (ACP has no nesting of calls yet).
   */
  call(
    agent: Agent,
    facts: ToolCallFacts,
    toolCallId: string,
    status: "pending" | "in_progress",
    child?: { agentId: string; title: string },
  ): void {
    if (this.#calls.has(toolCallId)) {
      this.send({ sessionUpdate: "tool_call_update", toolCallId, status });
      return;
    }
    const replaced = replacedFile(facts, agent.cwd);
    const started = (replaced ? this.#readBefore(replaced) : Promise.resolve(null)).then(
      (before) => callContent(facts, agent.cwd, before),
      () => callContent(facts, agent.cwd),
    );
    this.#calls.set(toolCallId, { facts, started });
    const parent = child ? this.#children.get(child.agentId) : undefined;
    const base = {
      sessionUpdate: "tool_call" as const,
      toolCallId,
      title: child ? `[${child.title}] ${toolTitle(facts)}` : toolTitle(facts),
      kind: toolKind(facts),
      status,
      locations: toolLocations(facts, agent.cwd),
      rawInput: facts.args,
      ...(child
        ? {
            _meta: {
              keel: {
                agentId: child.agentId,
                agentTitle: child.title,
                ...(parent ? { parentToolCallId: parent } : {}),
              },
            },
          }
        : {}),
    };
    this.send(started.then((content) => (content.length > 0 ? { ...base, content } : base)));
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
    if (this.#toolEvent(agent, event)) return;
    switch (event.type) {
      case "message_update": {
        const e = event.event;
        if (e.type === "text_delta")
          this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.delta } });
        else if (e.type === "thinking_delta")
          this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: e.delta } });
        return;
      }
      case "agent_start":
        this.#children.set(event.agentId, event.toolCallId);
        return;
      case "agent_event":
        // A child's calls and their progress, beside (and in _meta under) the call that started
        // it; its text is its own, the parent's call shows its answer.
        this.#toolEvent(agent, event.event, { agentId: event.agentId, title: event.title });
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

  /** A tool call's start, progress, end or denial, the parent's or a child's; false for anything else. */
  #toolEvent(agent: Agent, event: CodingAgentEvent, child?: { agentId: string; title: string }): boolean {
    const idOf = (toolCallId: string) => (child ? `${child.agentId}:${toolCallId}` : toolCallId);
    switch (event.type) {
      case "tool_start":
        this.call(
          agent,
          { ...event, ...(event as Partial<ToolCallFacts>) },
          idOf(event.toolCallId),
          "in_progress",
          child,
        );
        return true;
      case "tool_update": {
        const toolCallId = idOf(event.toolCallId);
        const call = this.#calls.get(toolCallId);
        const content = call ? progressContent(call.facts, event.text) : [];
        if (content.length > 0) this.send({ sessionUpdate: "tool_call_update", toolCallId, content });
        return true;
      }
      case "tool_end": {
        const toolCallId = idOf(event.toolCallId);
        const call = this.#calls.get(toolCallId);
        const facts = call?.facts ?? { toolName: event.toolName, args: {} };
        this.send(
          (call?.started ?? Promise.resolve([])).then((started) => ({
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: event.isError ? "failed" : "completed",
            content: resultContent(facts, started, event),
            rawOutput: { text: event.text, isError: event.isError },
          })),
        );
        return true;
      }
      case "permission_denied":
        this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: idOf(event.toolCallId),
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: event.reason } }],
        });
        return true;
      default:
        return false;
    }
  }
}
