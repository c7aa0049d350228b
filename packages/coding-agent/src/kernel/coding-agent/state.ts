// What a session's kernel is made of (KernelParts) and the state its parts share: the session,
// the loop, the host, the model. One object, passed to each part instead of the façade itself.
import type { Agent } from "@keel/agent";
import type { Model, StreamOptions, ThinkingLevel } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { CompactionSettings } from "../../compaction/policy.js";
import type { ExtensionHost, HostView } from "../../host/extension-host.js";
import type { CommandSandbox } from "../../sandbox/runtime.js";
import type { BuiltinTool } from "../../tools/shared.js";
import { textTokens } from "../context-size.js";
import type { FileHistory } from "../file-history.js";
import { JournalGuard } from "../journal-guard.js";
import type { NoticeQueue } from "../notices.js";
import type { KernelPermission } from "../permission.js";
import { requestedThinking } from "../thinking.js";
import type { CodingAgentError } from "../types.js";

export interface KernelParts {
  cwd: string;
  projectRoot: string;
  /** The Keel home (trust store, config). */
  home: string;
  session: Session;
  temporaryDir?: string;
  model: Model;
  resolveModel: (ref: Model | string) => Result<{ model: Model; warning?: string }, CodingAgentError>;
  systemPrompt: string;
  builtinTools: BuiltinTool[];
  streamOptions: StreamOptions;
  maxTurns?: number;
  compaction: CompactionSettings;
  permission: KernelPermission;
  diagnostics: Diagnostic[];
  /** Set for a child agent's kernel: it names the agent in events and approvals. */
  agent?: { agentId: string; title: string };
  /** Keeps what Keel's file tools change, for code rewind (absent: nothing is kept). */
  files?: FileHistory;
  /** The thinking level asked for; undefined: the model's default. */
  thinking?: ThinkingLevel;
  /** Every model the session could switch to. */
  listModels?: () => Model[];
  /** Routes prompt caching by this key instead of the session's id (a child sharing its parent's prefix). */
  cacheKey?: string;
  /** The OS sandbox commands run in; its scrubber keeps known secrets out of every tool result. */
  sandbox?: CommandSandbox;
  /** The session's kernel closes the sandbox; a child agent's shares its parent's. */
  ownsSandbox?: boolean;
}

export class KernelState {
  /** Replaced by a fork (navigation). */
  session: Session;
  /** The session's model, or a prompt's own while its run goes on (settings). */
  model: Model;
  thinking: ThinkingLevel | undefined;
  /** Set by attachHost, before anything runs. */
  host!: HostView;
  /** The ExtensionHost a session's kernel owns (undefined on a child agent's kernel). */
  ownHost: ExtensionHost | undefined;
  /** The agent loop, made once by the façade from the parts' seams. */
  agent!: Agent;
  /** Set by the façade once the NoticeQueue can report. */
  notices!: NoticeQueue;
  /** Characters of system prompt + tool schemas, counted in every request (tokens per the model). */
  fixedChars = 0;
  closed = false;
  /** A compaction going on: abort() stops it, and notices wait for it. */
  maintenance: AbortController | undefined;
  /**
   * Runs from their start until their result is returned (runEnd hooks and the overflow retry
   * included): one at a time, and close() lets them journal their end.
   */
  readonly runs = new Set<Promise<unknown>>();
  readonly journal = new JournalGuard(() => this.session);

  constructor(readonly parts: KernelParts) {
    this.session = parts.session;
    this.model = parts.model;
    this.thinking = parts.thinking;
  }

  get inRun(): boolean {
    return this.runs.size > 0;
  }

  /** Tokens of system prompt + tool schemas at the current model's tokenizer ratio. */
  get fixedTokens(): number {
    return textTokens(this.fixedChars, this.model);
  }

  /**
   * What every model request carries: the session for caching (a child sharing its parent's
   * prefix routes by the parent's), the thinking level for the model.
   */
  requestOptions(sessionId: string = this.session.id): StreamOptions {
    const reasoning = requestedThinking(this.model, this.thinking ?? this.parts.streamOptions.reasoning);
    const { reasoning: _given, ...rest } = this.parts.streamOptions;
    return {
      ...rest,
      sessionId: this.parts.cacheKey ?? sessionId,
      ...(reasoning !== undefined ? { reasoning } : {}),
    };
  }

  /** Navigation and manual compaction wait for the loop. */
  idle(): Result<void, CodingAgentError> {
    if (this.agent.isRunning)
      return err({ type: "busy", message: "Wait for the run to end (or abort it) first." });
    return ok(undefined);
  }
}
