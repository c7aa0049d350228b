// A connector's actions as catalog entries: `github__create_issue` in group `github`, each call
// through the approval gate first and the service after, with the token scrubbed from whatever
// comes back. The kernel journals T1/T2 for entries with side effects; the gate's decision is
// journaled here (see DecisionRecord).
import type {
  ApprovalPreview,
  ExecutableCatalogEntry,
  ToolCallContext,
  ToolResult,
} from "@keel/extension-sdk";
import { ResultAsync } from "neverthrow";
import type { ConnectorConfig } from "./config.js";
import type { ConnectorHub } from "./hub.js";
import { type DecisionRecord, type GateInput, passGate } from "./policy/gate.js";
import type { ExactCallGrants } from "./policy/grants.js";
import { redactArgs, scrubSecrets } from "./redact.js";
import { type Connector, type ConnectorAction, entryName } from "./sdk/connector.js";
import { type ConnectorError, describeError } from "./sdk/errors.js";

export interface EntryDeps {
  config(): ConnectorConfig;
  hub: ConnectorHub;
  grants: ExactCallGrants;
  now(): number;
  record(decision: DecisionRecord): void;
  persistAlways: GateInput["persistAlways"];
  /** Hands a token to the kernel, which keeps it out of commands and every tool result. */
  protect(token: string): void;
}

export interface ActionDetails {
  connector: string;
  action: string;
  effect: ConnectorAction["effect"];
  decision?: DecisionRecord;
  data?: unknown;
  error?: ConnectorError;
}

function result(
  text: string,
  details: ActionDetails,
  isError: boolean,
  secrets: string[],
): ToolResult<ActionDetails> {
  return scrubSecrets(
    { content: [{ type: "text", text }], details, ...(isError ? { isError: true } : {}) },
    secrets,
  ) as ToolResult<ActionDetails>;
}

function defaultPreview(args: Record<string, unknown>): ApprovalPreview {
  return { format: "json", text: JSON.stringify(args, null, 2) };
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/.exec(text);
  return match ? match[1]! : text.split("\n")[0]!;
}

/**
 * `attempt` for one call: the client call's failure classified by the connector, and an abort of
 * the tool call answered at once even when the client cannot be cancelled (the Linear SDK's
 * requests take no per-request signal).
 */
export function attemptFor(connector: Connector, signal: AbortSignal) {
  return <T>(call: () => Promise<T>): ResultAsync<T, ConnectorError> => {
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    // The race's loser must not surface as an unhandled rejection.
    aborted.catch(() => {});
    return ResultAsync.fromPromise(Promise.race([Promise.resolve().then(call), aborted]), (e) =>
      connector.classifyError(e),
    );
  };
}

export function actionEntry(
  connector: Connector,
  action: ConnectorAction,
  deps: EntryDeps,
): ExecutableCatalogEntry {
  const name = entryName(connector.id, action.name);
  const sensitive = action.sensitivity === "sensitive";
  const redact = (args: Record<string, unknown>) => (sensitive ? redactArgs(args) : args);
  return {
    name,
    description: `${action.description} (${connector.label}; ${action.effect})`,
    summary: action.summary ?? firstSentence(action.description),
    parameters: action.parameters,
    // Reads change nothing: no T1/T2, and plan mode keeps them. Everything else changes the
    // service's state: journaled, and asked about by the connector's own policy.
    access: action.effect === "read" ? "read" : "write",
    approval: "extension",
    // Writes to one service run one at a time, in the order the model asked for them.
    executionMode: action.effect === "read" ? "parallel" : "sequential",
    ...(sensitive ? { redact } : {}),
    async execute(rawArgs, context: ToolCallContext): Promise<ToolResult> {
      const args = rawArgs as Record<string, unknown>;
      const details: ActionDetails = { connector: connector.id, action: name, effect: action.effect };
      const config = deps.config();
      const connected = await deps.hub.client(connector, config);
      if (connected.isErr()) {
        if (connected.error.type !== "not_connected")
          return result(`${connected.error.message} ${name} was not run.`, details, true, []);
        const { tokenEnv } = deps.hub.settingsOf(connector, config);
        return result(
          `${connector.label} is not connected any more (no $${tokenEnv} and no stored login); ${name} was not run. ` +
            `The user can connect it with \`keel connector login ${connector.id}\`.`,
          details,
          true,
          [],
        );
      }
      const live = connected.value;
      const secrets = [live.token];
      deps.protect(live.token);
      const gate = await passGate({
        identity: { connectorId: connector.id, entry: name, effect: action.effect },
        label: connector.label,
        args,
        recordedArgs: scrubSecrets(redact(args), secrets),
        preview: scrubSecrets(action.preview ? action.preview(args) : defaultPreview(args), secrets),
        toolCallId: context.toolCallId,
        ...(context.agent ? { agent: context.agent } : {}),
        user: config.policy,
        project: config.fromProject?.policy,
        grants: deps.grants,
        now: deps.now,
        approve: (request) => context.approve(request),
        persistAlways: deps.persistAlways,
        signal: context.signal,
      });
      deps.record(gate.record);
      details.decision = gate.record;
      if (!gate.allowed)
        return { ...result(gate.message, details, true, secrets), denial: { reason: gate.denial } };

      const { settings, tokenEnv } = deps.hub.settingsOf(connector, config);
      const wording = {
        label: connector.label,
        connectorId: connector.id,
        tokenEnv,
        baseUrl: settings.baseUrl,
      };
      const attempt = attemptFor(connector, context.signal);
      let outcome: Awaited<ReturnType<ConnectorAction["run"]>>;
      try {
        outcome = await action.run(args, { client: live.client, signal: context.signal, attempt });
      } catch (e) {
        // A bug in the action, not a service error: still one clear result, and no token in it.
        const error = { type: "failed" as const, message: e instanceof Error ? e.message : String(e) };
        return result(describeError(error, wording), { ...details, error }, true, secrets);
      }
      if (outcome.isErr())
        return result(
          describeError(outcome.error, wording),
          { ...details, error: outcome.error },
          true,
          secrets,
        );
      return result(
        outcome.value.text,
        { ...details, ...(outcome.value.data === undefined ? {} : { data: outcome.value.data }) },
        false,
        secrets,
      );
    },
  };
}

export function connectorEntries(connector: Connector, deps: EntryDeps): ExecutableCatalogEntry[] {
  return connector.actions.map((action) => actionEntry(connector, action, deps));
}
