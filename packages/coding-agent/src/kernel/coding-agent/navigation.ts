// Moving about the session: its messages and tree, branch and rewind (with the files Keel's tools
// changed, see rewind.ts), and fork into a new session file. None of it while the loop runs.
import type { Message } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import { historyOf } from "../history.js";
import { fileChanges, moveTo, rewindTarget } from "../rewind.js";
import { sessionTree } from "../tree.js";
import type {
  CodingAgentError,
  FileChanges,
  FilesRestored,
  HistoryItem,
  RestoreChoice,
  SessionTreeNode,
} from "../types.js";
import type { KernelState } from "./state.js";

export class Navigation {
  constructor(private readonly state: KernelState) {}

  messages(): Message[] {
    return [...this.state.session.context()];
  }

  history(): HistoryItem[] {
    const session = this.state.session;
    return historyOf(session.fold(), (id) => session.getEntry(id));
  }

  tree(): SessionTreeNode[] {
    return sessionTree(this.state.session);
  }

  async branch(
    entryId: string,
    options: { restore?: RestoreChoice } = {},
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
    const idle = this.state.idle();
    if (idle.isErr()) return err(idle.error);
    const session = this.state.session;
    if (!session.getEntry(entryId))
      return err({ type: "session", message: `No entry ${entryId} in session ${session.id}.` });
    return this.moveTo(entryId, options.restore ?? "conversation");
  }

  async rewind(
    count = 1,
    options: { restore?: RestoreChoice } = {},
  ): Promise<
    Result<{ entryId: string | null; prompt: string | undefined; files?: FilesRestored }, CodingAgentError>
  > {
    const idle = this.state.idle();
    if (idle.isErr()) return err(idle.error);
    const target = rewindTarget(this.state.session, count);
    if (target.isErr()) return err(target.error);
    const moved = await this.moveTo(target.value.parentId, options.restore ?? "conversation");
    if (moved.isErr()) return err(moved.error);
    return ok({ entryId: target.value.parentId, prompt: target.value.text, ...moved.value });
  }

  fileChanges(target: { rewind: number } | { entryId: string }): Result<FileChanges, CodingAgentError> {
    return fileChanges(this.state.session, this.state.parts.files, target);
  }

  async fork(
    entryId?: string,
  ): Promise<Result<{ sessionFile: string; sessionId: string }, CodingAgentError>> {
    const state = this.state;
    const idle = state.idle();
    if (idle.isErr()) return err(idle.error);
    const forked = await state.session.fork(entryId ?? state.session.headId);
    if (forked.isErr()) return err({ type: "session", message: forked.error.message });
    await state.ownHost?.shutdown("fork");
    await state.session.close();
    state.session = forked.value;
    state.agent.replaceMessages(state.session.context());
    state.agent.configure({ streamOptions: state.requestOptions(state.session.id) });
    await state.host.notify("sessionStart", { reason: "fork", sessionId: state.session.id });
    return ok({ sessionFile: state.session.path, sessionId: state.session.id });
  }

  /** Moves the conversation to `target` and/or puts the files back (see rewind.ts). */
  private moveTo(
    target: string | null,
    restore: RestoreChoice,
  ): Promise<Result<{ files?: FilesRestored }, CodingAgentError>> {
    const state = this.state;
    return moveTo(
      {
        session: state.session,
        ...(state.parts.files ? { files: state.parts.files } : {}),
        moved: async () => {
          state.agent.replaceMessages(state.session.context());
          await state.host.notify("sessionStart", { reason: "branch", sessionId: state.session.id });
        },
      },
      target,
      restore,
    );
  }
}
