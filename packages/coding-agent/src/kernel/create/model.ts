// Creation's model step: the model asked for, else the session's last, else config's, else the
// environment's default — looked up in the catalog, config providers and what endpoints listed;
// and, once the session is ready, the choice journaled when it differs from the session's last.
import { type Model, type ModelRegistry, preconnect, type ThinkingLevel } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import type { Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { KeelConfig } from "../../config/schema.js";
import { chooseModel } from "../model-choice.js";
import { cachedEndpointModels } from "../model-discovery.js";
import type { CodingAgentError, CodingAgentOptions } from "../types.js";
import type { Note } from "./project-trust.js";

type FoldedModel = ReturnType<Session["fold"]>["model"];

export interface SessionModel {
  model: Model;
  /** What providers' models endpoints listed (`keel models`), read from the cache. */
  endpoint: ReturnType<typeof cachedEndpointModels>;
}

export function chooseSessionModel(
  registry: ModelRegistry,
  options: CodingAgentOptions,
  folded: FoldedModel,
  config: KeelConfig,
  home: string,
  note: Note,
): Result<SessionModel, CodingAgentError> {
  // What providers' models endpoints listed (`keel models`), read from the cache: never waits.
  const endpoint = cachedEndpointModels(home, registry);
  const chosen = chooseModel(
    registry,
    [options.model, folded ? `${folded.provider}/${folded.modelId}` : undefined, config.model],
    process.env,
    endpoint,
    home,
  );
  if (chosen.isErr()) return err(chosen.error);
  if (chosen.value.warning) note("warning", chosen.value.warning);
  const model = chosen.value.model;
  // The first request's handshakes overlap the rest of the setup.
  preconnect(model, options.streamOptions);
  return ok({ model, endpoint });
}

/** Journals the model and thinking level when they differ from what the session last ran on. */
export async function journalModelChoice(
  session: Session,
  folded: FoldedModel,
  model: Model,
  thinking: ThinkingLevel | undefined,
  report: (level: Diagnostic["level"], message: string) => void,
): Promise<void> {
  const modelChanged =
    !folded ||
    folded.provider !== model.provider ||
    folded.modelId !== model.id ||
    folded.thinking !== thinking;
  if (!modelChanged || session.readOnly) return;
  const journaled = await session.appendEntry({
    type: "model_change",
    provider: model.provider,
    modelId: model.id,
    ...(thinking !== undefined ? { thinking } : {}),
  });
  // Like setModel: a resumed session would otherwise silently come back on another model.
  if (journaled.isErr()) report("error", `Could not journal the model choice: ${journaled.error.message}`);
}
