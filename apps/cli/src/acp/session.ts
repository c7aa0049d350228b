// One ACP session over one Keel session: its events as session/update notifications, prompts and
// slash commands, cancel, modes and config options, approvals and trust through the editor.
import { randomUUID } from "node:crypto";
import type {
  AgentContext,
  ClientCapabilities,
  McpServer,
  PromptResponse,
  SessionUpdate,
  StopReason,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import {
  type ApprovalAnswer,
  type CodingAgent,
  type CodingAgentOptions,
  createCodingAgent,
  formatTrustPreview,
  type PromptOptions,
  parseCommandLine,
  type TextFileAccess,
  type ToolApprovalRequest,
} from "@keel/coding-agent";
import { err, ok, type Result } from "neverthrow";
import { availableCommands } from "./commands.js";
import { configOptions, MODES, setConfigOption } from "./config-options.js";
import { AcpFailure } from "./failure.js";
import { answerOf, approvalChoices, approvalContent, approvalTitle, TRUST_OPTIONS } from "./permissions.js";
import { promptInput } from "./prompt.js";
import { replayUpdates } from "./replay.js";
import { beforeReader, type ToolCallFacts, toolTitle } from "./tool-calls.js";
import { SessionUpdates } from "./updates.js";

export interface SessionSetup {
  client: AgentContext;
  capabilities: ClientCapabilities;
  /** The options from `keel acp`'s flags; each session sets its own cwd and session choice. */
  base: CodingAgentOptions;
  cwd: string;
  mcpServers: readonly McpServer[];
  /** New, or the session to load (its id). */
  load?: string;
}

const messageOf = (e: unknown): string =>
  e instanceof Error
    ? e.message
    : typeof e === "object" && e && "message" in e
      ? String(e.message)
      : String(e);

/** The client's MCP servers as a session layer of ext-mcp's configuration (its `servers` format). */
export function mcpLayer(servers: readonly McpServer[]): Record<string, unknown> | undefined {
  if (servers.length === 0) return undefined;
  const pairs = (list: readonly { name: string; value: string }[]) =>
    Object.fromEntries(list.map((p) => [p.name, p.value]));
  const entries = servers.map((s) =>
    "command" in s
      ? [s.name, { type: "stdio", command: s.command, args: s.args, env: pairs(s.env) }]
      : [s.name, { type: s.type === "sse" ? "sse" : "http", url: s.url, headers: pairs(s.headers) }],
  );
  return { mcp: { servers: Object.fromEntries(entries) } };
}

/** fs/read_text_file and fs/write_text_file, as far as the client offers them. */
function editorFiles(
  client: AgentContext,
  capabilities: ClientCapabilities,
  sessionId: () => string,
): TextFileAccess | undefined {
  const fs = capabilities.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  const failed = (e: unknown) =>
    err({ type: "text_file" as const, message: `the editor said: ${messageOf(e)}` });
  return {
    ...(fs.readTextFile
      ? {
          read: (path: string) =>
            client.request("fs/read_text_file", { sessionId: sessionId(), path }).then(
              (r) => ok(r.content),
              (e) => failed(e),
            ),
        }
      : {}),
    ...(fs.writeTextFile
      ? {
          write: (path: string, content: string) =>
            client.request("fs/write_text_file", { sessionId: sessionId(), path, content }).then(
              () => ok(undefined),
              (e) => failed(e),
            ),
        }
      : {}),
  };
}

const STOP: Record<string, StopReason> = {
  stop: "end_turn",
  aborted: "cancelled",
  length: "max_tokens",
  max_turns: "max_turn_requests",
};

export class AcpSession {
  #agent!: CodingAgent;
  #options!: CodingAgentOptions;
  readonly #client: AgentContext;
  readonly #capabilities: ClientCapabilities;
  readonly #updates: SessionUpdates;
  readonly #textFiles: TextFileAccess | undefined;
  /** Diagnostics said before this are in announce()'s list; later ones are sent as they come. */
  #announced = false;

  private constructor(setup: SessionSetup) {
    this.#client = setup.client;
    this.#capabilities = setup.capabilities;
    this.#textFiles = editorFiles(setup.client, setup.capabilities, () => this.id);
    this.#updates = new SessionUpdates(setup.client, () => this.id, beforeReader(this.#textFiles?.read));
  }

  static async open(setup: SessionSetup): Promise<Result<AcpSession, AcpFailure>> {
    const session = new AcpSession(setup);
    const extensionConfig = mcpLayer(setup.mcpServers);
    session.#options = {
      ...setup.base,
      cwd: setup.cwd,
      session: setup.load === undefined ? { mode: "new" } : { mode: "resume", session: setup.load },
      ui: { approve: (request) => session.#approve(request) },
      // Creation's own events come before the client knows the session: they are not sent.
      onEvent: (event) => {
        if (!session.#agent) return;
        session.#updates.event(session.#agent, event);
        // Said after the start (the sandbox's line once its probe is done): sent as it comes.
        if (event.type === "diagnostic" && session.#announced) session.#notice(event.diagnostic);
      },
      ...(extensionConfig ? { extensionConfig } : {}),
      ...(session.#textFiles ? { textFiles: session.#textFiles } : {}),
    };
    const opened = await session.#create();
    return opened.map(() => session);
  }

  async #create(): Promise<Result<void, AcpFailure>> {
    this.#announced = false;
    const created = await createCodingAgent(this.#options);
    if (created.isErr()) {
      const { type, message } = created.error;
      const problem = "problem" in created.error ? created.error.problem : undefined;
      // Another process (or connection) holds it: it is there, only not to be had now.
      if (problem === "locked") return err(AcpFailure.invalidRequest(message, { type, problem }));
      return err(
        type === "session" && this.#options.session?.mode === "resume"
          ? AcpFailure.notFound(message)
          : AcpFailure.internal(message, { type }),
      );
    }
    this.#agent = created.value;
    return ok(undefined);
  }

  get id(): string {
    return this.#agent?.sessionId ?? "";
  }

  get agent(): CodingAgent {
    return this.#agent;
  }

  /** Everything sent so far has been written (before a prompt answers, or a load). */
  flushed(): Promise<void> {
    return this.#updates.flushed();
  }

  modes() {
    return { currentModeId: this.#agent.permissionMode(), availableModes: MODES };
  }

  configOptions() {
    return configOptions(this.#agent);
  }

  /** What a client shows once a session is there: its commands and its plan. */
  announce(): void {
    this.#send({
      sessionUpdate: "available_commands_update",
      availableCommands: availableCommands(this.#agent),
    });
    this.#updates.plan(this.#agent);
    for (const d of this.#agent.diagnostics()) this.#notice(d);
    this.#announced = true;
  }

  #notice(d: ReturnType<CodingAgent["diagnostics"]>[number]): void {
    if (this.#capabilities.session?.notices && d.level !== "info")
      this.#send({ sessionUpdate: "notice", severity: d.level, title: d.message });
  }

  /** session/load: the branch's conversation replayed, before the load answers. */
  replay(): Promise<void> {
    for (const update of replayUpdates(this.#agent.history(), this.#agent.cwd, (name, args) =>
      this.#agent.describeToolCall(name, args),
    ))
      this.#send(update);
    return this.flushed();
  }

  #send(update: SessionUpdate): void {
    this.#updates.send(update);
  }

  async #approve(request: ToolApprovalRequest): Promise<ApprovalAnswer> {
    const facts: ToolCallFacts = {
      toolName: request.toolName,
      args: request.args,
      ...this.#agent.describeToolCall(request.toolName, request.args),
    };
    // The gate asks before the call starts: the editor sees the call first, pending. A child
    // agent's calls are its own (their ids are named apart); an extension's question has no call.
    const id = request.toolCallId
      ? request.agent
        ? `${request.agent.id}:${request.toolCallId}`
        : request.toolCallId
      : randomUUID();
    this.#updates.call(
      this.#agent,
      facts,
      id,
      "pending",
      request.agent ? { agentId: request.agent.id, title: request.agent.title } : undefined,
    );
    const canAskForWords = this.#capabilities.elicitation?.form != null;
    const choices = approvalChoices(request, canAskForWords);
    await this.flushed();
    let outcome: Awaited<ReturnType<AgentContext["request"]>>;
    try {
      const response = await this.#client.request(
        "session/request_permission",
        {
          sessionId: this.id,
          toolCall: {
            toolCallId: id,
            title: approvalTitle(request, toolTitle(facts)),
            content: [...((await this.#updates.started(id)) ?? []), ...approvalContent(request)],
          },
          options: choices.map((c) => c.option),
        },
        ...(request.signal ? [{ cancellationSignal: request.signal }] : []),
      );
      outcome = response.outcome;
    } catch {
      // The editor failed to answer (or went away): nobody said yes.
      return { decision: "deny", stopRun: true };
    }
    const answer = answerOf(outcome as never, choices);
    return answer === "tell" ? this.#askWhatInstead() : answer;
  }

  /** "Deny, and say what to do instead": the words through an elicitation form. */
  async #askWhatInstead(): Promise<ApprovalAnswer> {
    try {
      const answer = await this.#client.request("elicitation/create", {
        sessionId: this.id,
        mode: "form",
        message: "What should Keel do instead?",
        requestedSchema: {
          type: "object",
          properties: { instead: { type: "string", title: "Instead" } },
          required: ["instead"],
        },
      });
      const content =
        answer.action === "accept"
          ? (answer as { content?: Record<string, unknown> | null }).content
          : undefined;
      const said = content?.instead;
      return {
        decision: "deny",
        ...(typeof said === "string" && said.trim() ? { reason: said.trim() } : {}),
        stopRun: true,
      };
    } catch {
      return { decision: "deny", stopRun: true };
    }
  }

  async prompt(blocks: Parameters<typeof promptInput>[0]): Promise<PromptResponse> {
    let input = promptInput(blocks);
    const slash = parseCommandLine(input.text);
    const spec = slash && this.#agent.commands.get(slash.name);
    if (slash && spec?.needsTerminal) {
      this.#say(`/${slash.name} needs Keel's terminal UI; the editor starts, switches and ends sessions.`);
      await this.flushed();
      return { stopReason: "end_turn" };
    }
    if (slash && spec) {
      // Trust is asked through the editor: the presenter for the command's interactive name.
      const ran =
        spec.interactive === "trust-confirm"
          ? await this.#trust(slash.args)
          : await this.#command(slash.name, slash.args);
      if (ran === undefined) {
        await this.flushed();
        return { stopReason: "end_turn" };
      }
      input = { text: ran.text, ...ran.options };
    }
    const result = await this.#agent.prompt(input);
    await this.flushed();
    if (result.isErr()) throw AcpFailure.invalidRequest(result.error.message, { type: result.error.type });
    const summary = result.value;
    // The user denied a call and so ended the turn: the turn ended, nobody cancelled it.
    if (summary.stoppedBy === "denial") return { stopReason: "end_turn" };
    const stop = STOP[summary.stopReason];
    if (stop) return { stopReason: stop };
    throw AcpFailure.internal(
      summary.error?.message ?? `The run ended with ${summary.stopReason}.`,
      summary.error ?? { type: summary.stopReason },
    );
  }

  #say(text: string): void {
    this.#send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  /** A slash command: its message in the editor; a prompt it makes is returned to run. */
  async #command(name: string, args: string): Promise<{ text: string; options?: PromptOptions } | undefined> {
    const mode = this.#agent.permissionMode();
    const done = await this.#agent.commands.run(args ? `/${name} ${args}` : `/${name}`);
    if (done.isErr()) {
      this.#say(done.error.message);
      return undefined;
    }
    if (done.value.message) this.#say(done.value.message);
    if (this.#agent.permissionMode() !== mode)
      this.#send({ sessionUpdate: "current_mode_update", currentModeId: this.#agent.permissionMode() });
    this.#send({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    this.#send({
      sessionUpdate: "available_commands_update",
      availableCommands: availableCommands(this.#agent),
    });
    return done.value.prompt !== undefined
      ? {
          text: done.value.prompt,
          ...(done.value.promptOptions ? { options: done.value.promptOptions } : {}),
        }
      : undefined;
  }

  /** /trust: what the project could do, then the editor's yes (as the terminal asks), then a reload. */
  async #trust(args: string): Promise<undefined> {
    if (args !== "" && args !== "yes") {
      this.#say("Usage: /trust (show, then confirm) or /trust yes");
      return undefined;
    }
    const preview = formatTrustPreview(await this.#agent.trustPreview());
    if (args !== "yes") {
      const toolCallId = `trust:${randomUUID()}`;
      const content: ToolCallContent[] = [
        {
          type: "content",
          content: {
            type: "text",
            text: `${preview}\n\nIts config, hooks, extensions, MCP servers and context files load from then on.`,
          },
        },
      ];
      const title = "Trust this project as it is now?";
      this.#send({
        sessionUpdate: "tool_call",
        toolCallId,
        title,
        kind: "other",
        status: "pending",
        content,
      });
      await this.flushed();
      const response = await this.#client
        .request("session/request_permission", {
          sessionId: this.id,
          toolCall: { toolCallId, title, content },
          options: TRUST_OPTIONS,
        })
        .catch(() => undefined);
      const yes = response?.outcome.outcome === "selected" && response.outcome.optionId === "trust";
      this.#send({ sessionUpdate: "tool_call_update", toolCallId, status: yes ? "completed" : "failed" });
      if (!yes) {
        this.#say("Nothing was trusted.");
        return undefined;
      }
    } else this.#say(preview);
    const trusted = await this.#agent.trust();
    if (trusted.isErr()) {
      this.#say(`Could not trust the project: ${trusted.error.message}`);
      return undefined;
    }
    this.#say(`Trusted ${trusted.value.projectRoot}. Reloading with its config and extensions…`);
    await this.reopen();
    return undefined;
  }

  /** The same session again, with what changed (trust) read anew. */
  async reopen(): Promise<void> {
    const file = this.#agent.sessionFile;
    await this.flushed();
    await this.#agent.close({ reason: "reload" });
    this.#options = { ...this.#options, session: file ? { mode: "resume", session: file } : { mode: "new" } };
    this.#updates.forgetCalls();
    const reopened = await this.#create();
    if (reopened.isErr()) throw reopened.error;
    this.announce();
  }

  setMode(modeId: string): void {
    const set = this.#agent.setPermissionMode(modeId as never);
    if (set.isErr()) throw AcpFailure.invalidParams(set.error.message, { modeId });
    this.#send({ sessionUpdate: "current_mode_update", currentModeId: set.value });
  }

  setConfigOption(configId: string, value: string | boolean) {
    const before = this.#agent.permissionMode();
    const set = setConfigOption(this.#agent, configId, value);
    if (set.isErr()) throw AcpFailure.invalidParams(set.error, { configId, value });
    if (this.#agent.permissionMode() !== before)
      this.#send({ sessionUpdate: "current_mode_update", currentModeId: this.#agent.permissionMode() });
    return this.configOptions();
  }

  cancel(): void {
    this.#agent.abort();
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
