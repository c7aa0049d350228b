// The session's settings a user changes while it goes on: the model (journaled), the thinking
// level (journaled with it), a prompt's own model for its run. The permission mode and rules are
// ../controls.ts's, which the façade calls itself.
import { type Model, modelRef, type ThinkingLevel } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { hasKey, modelChoices } from "../controls.js";
import { remapNote, type ThinkingState, thinkingState } from "../thinking.js";
import type { CodingAgentError } from "../types.js";
import type { KernelState } from "./state.js";

export class KernelSettings {
  constructor(
    private readonly state: KernelState,
    private readonly report: (level: Diagnostic["level"], message: string) => void,
  ) {}

  model(): Model {
    return this.state.model;
  }

  setModel(ref: Model | string): Result<Model, CodingAgentError> {
    const state = this.state;
    const chosen = state.parts.resolveModel(ref);
    if (chosen.isErr()) return err(chosen.error);
    const model = chosen.value.model;
    if (!hasKey(model, state.parts.streamOptions))
      return err({
        type: "model",
        message: `${modelRef(model)} needs an API key: set ${model.apiKeyEnv} and start keel again. Still on ${modelRef(state.model)}.`,
      });
    if (chosen.value.warning) this.report("warning", chosen.value.warning);
    state.model = model;
    state.agent.configure({ model, streamOptions: state.requestOptions(state.session.id) });
    this.journalModel();
    // The level chosen for the last model may not be one this one takes: say what it gets instead.
    const remapped = remapNote(this.thinking());
    if (remapped) this.report("info", remapped);
    return ok(model);
  }

  models(): { ref: string; name: string; ready: boolean; keyEnv?: string; legacy?: boolean }[] {
    return modelChoices(this.state.parts.listModels?.() ?? [], this.state.parts.streamOptions);
  }

  thinking(): ThinkingState {
    return thinkingState(this.state.model, this.state.thinking);
  }

  setThinking(level: ThinkingLevel | undefined): Result<ThinkingState, CodingAgentError> {
    const state = this.state;
    state.thinking = level;
    state.agent.configure({ streamOptions: state.requestOptions(state.session.id) });
    this.journalModel();
    return ok(this.thinking());
  }

  /**
   * The model one prompt asked for (a command file's `model`), put in place for its run; returns
   * what puts the session's back. Not journaled: the session stays on its model.
   */
  modelForRun(ref: string | undefined): () => void {
    if (ref === undefined) return () => {};
    const state = this.state;
    const chosen = state.parts.resolveModel(ref);
    const model = chosen.isOk() ? chosen.value.model : undefined;
    if (!model || !hasKey(model, state.parts.streamOptions)) {
      const why = chosen.isErr() ? chosen.error.message : `${modelRef(model!)} has no API key`;
      this.report(
        "warning",
        `This prompt asked for the model "${ref}", which Keel cannot use (${why}); it runs on ${modelRef(state.model)}.`,
      );
      return () => {};
    }
    const session = state.model;
    if (model === session) return () => {};
    state.model = model;
    state.agent.configure({ model, streamOptions: state.requestOptions(state.session.id) });
    return () => {
      state.model = session;
      state.agent.configure({ model: session, streamOptions: state.requestOptions(state.session.id) });
    };
  }

  private journalModel(): void {
    const { model, thinking: level } = this.state;
    void this.state.session
      .appendEntry({
        type: "model_change",
        provider: model.provider,
        modelId: model.id,
        ...(level !== undefined ? { thinking: level } : {}),
      })
      .then((r) => {
        if (r.isErr()) this.report("error", `Could not journal the model change: ${r.error.message}`);
      });
  }
}
