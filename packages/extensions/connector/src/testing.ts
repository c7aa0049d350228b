// For a connector package's own tests: run one action the way a session does (the client from
// a token and base URL, `attempt` classifying with the connector, errors worded for the model,
// the token scrubbed), without a session or the approval gate.
import { attemptFor } from "./entries.js";
import { scrubSecrets } from "./redact.js";
import type { Connector } from "./sdk/connector.js";
import { type ConnectorError, describeError } from "./sdk/errors.js";

export interface ActionRun {
  isError: boolean;
  /** What the model would read. */
  text: string;
  data?: unknown;
  error?: ConnectorError;
}

export async function runConnectorAction(
  connector: Connector,
  actionName: string,
  args: Record<string, unknown>,
  options: { token: string; baseUrl?: string; signal?: AbortSignal },
): Promise<ActionRun> {
  const action = connector.actions.find((a) => a.name === actionName);
  if (!action) throw new Error(`${connector.id} has no action "${actionName}"`);
  const settings = { baseUrl: options.baseUrl ?? connector.defaultBaseUrl };
  const signal = options.signal ?? new AbortController().signal;
  const client = await connector.client(options.token, settings);
  const outcome = await action.run(args, { client, signal, attempt: attemptFor(connector, signal) });
  const wording = {
    label: connector.label,
    connectorId: connector.id,
    tokenEnv: connector.auth.env,
    baseUrl: settings.baseUrl,
  };
  const run: ActionRun = outcome.isOk()
    ? {
        isError: false,
        text: outcome.value.text,
        ...(outcome.value.data === undefined ? {} : { data: outcome.value.data }),
      }
    : { isError: true, text: describeError(outcome.error, wording), error: outcome.error };
  return scrubSecrets(run, [options.token]);
}
