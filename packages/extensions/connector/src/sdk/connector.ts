// The connector SDK: a connector is a service (GitHub, Linear, yours) with one way to
// authenticate and a list of actions, each declaring what it does to the world. The extension
// turns connectors into catalog entries behind the user's approval policy; a connector never
// asks, journals or stores anything itself.
import type { ApprovalPreview, Static, TSchema } from "@keel/extension-sdk";
import type { Result, ResultAsync } from "neverthrow";
import type { ConnectorError } from "./errors.js";

/** What an action does to the service: the approval policy's defaults are per class. */
export type SideEffectClass = "read" | "create" | "update" | "destructive";

export const SIDE_EFFECT_CLASSES: readonly SideEffectClass[] = ["read", "create", "update", "destructive"];

/**
 * `sensitive`: the arguments must not be kept. The approval records and the kernel's journal
 * keep only their names (values become `[redacted]`); the dialog still shows them to the user.
 */
export type Sensitivity = "normal" | "sensitive";

/** How a connector authenticates: a token from an environment variable or `keel connector login`. */
export interface ConnectorAuth {
  /** The environment variable read by default (`GITHUB_TOKEN`); config `tokenEnv` renames it. */
  env: string;
  /** What the token is called at the service ("personal access token", "API key"). */
  tokenName: string;
  /** One or two sentences: where to create a token and which scopes it needs. */
  help: string;
}

/** What an action returns: text for the model and, optionally, structured JSON-safe data. */
export interface ActionOutput {
  text: string;
  data?: unknown;
}

/** `attempt(…).map(…)` chains return a ResultAsync; hand-written ones may return a Promise of a Result. */
export type ActionReturn =
  | ResultAsync<ActionOutput, ConnectorError>
  | Promise<Result<ActionOutput, ConnectorError>>;

/** What an action's `run` gets besides its arguments. */
export interface ActionContext<Client> {
  /** The connector's client, made by its `client()` with the user's credentials. */
  client: Client;
  /** Aborted with the tool call. */
  signal: AbortSignal;
  /**
   * Runs a client call and classifies whatever it throws with the connector's `classifyError`, so
   * an action reads as one chain: `attempt(() => client.get(…)).map(toOutput)`.
   */
  attempt<T>(call: () => Promise<T>): ResultAsync<T, ConnectorError>;
}

export interface ConnectorAction<Client = unknown, P extends TSchema = TSchema> {
  /**
   * Lowercase letters, digits and `_` (`create_issue`). The model sees `<connector>__<name>`
   * (`github__create_issue`); permission rules name it so or as `<connector>:<connector>__<name>`.
   */
  name: string;
  /** What the model reads in SearchTools: what it does and when to use it. */
  description: string;
  /** One line for capability notices (default: the description's first sentence). */
  summary?: string;
  /** TypeBox schema of the arguments; the host validates them before anything runs. */
  parameters: P;
  effect: SideEffectClass;
  /** Default `normal`. */
  sensitivity?: Sensitivity;
  /**
   * What will be sent, for the approval dialog. Pure: it must not reach the service (the dialog
   * shows it before anything is sent). Default: the arguments as JSON.
   */
  preview?(args: Static<P>): ApprovalPreview;
  run(args: Static<P>, context: ActionContext<Client>): ActionReturn;
}

/** The connector's own settings from config (`extensions.connector.config.connectors.<id>`). */
export interface ConnectorSettings {
  /** The API base URL (GitHub Enterprise, a self-hosted instance, a test's local fake). */
  baseUrl: string;
}

export interface ConnectorDefinition<Client = unknown> {
  /** Lowercase letters and digits (`github`): the catalog group, the config key, the login id. */
  id: string;
  /** How users know it ("GitHub"). */
  label: string;
  /** One line for `/connectors` and `keel connector list`. */
  description?: string;
  /** Where the client connects by default. */
  defaultBaseUrl: string;
  auth: ConnectorAuth;
  /**
   * Makes the service's client. Called once per token and base URL, never with an empty token,
   * and only when an action first runs: import the service's SDK here (`await import(…)`), so a
   * session that never uses the connector never loads it.
   */
  client(token: string, settings: ConnectorSettings): Client | Promise<Client>;
  /**
   * Classifies what a client call threw into a tagged error (HTTP status, rate limit, network).
   * Called once, at the SDK boundary; actions never inspect thrown errors themselves.
   */
  classifyError(error: unknown): ConnectorError;
  /**
   * Who the token belongs to ("alice"), for `keel connector login` to confirm a token works.
   * Optional; without it a login is stored unchecked.
   */
  whoami?(
    client: Client,
    context: Omit<ActionContext<Client>, "client">,
  ): ResultAsync<string, ConnectorError> | Promise<Result<string, ConnectorError>>;
  // Methods are bivariant in their parameters, so an action typed by its own schema (and a
  // connector of a specific client type) still fits the general shape.
  actions: ConnectorAction<Client, TSchema>[];
}

/** Any connector, whatever its client type. */
export type Connector = ConnectorDefinition<unknown>;

const CONNECTOR_ID = /^[a-z][a-z0-9]{0,31}$/;
const ACTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** The name the model and permission rules use: `github__create_issue`. */
export function entryName(connectorId: string, actionName: string): string {
  return `${connectorId}__${actionName}`;
}

/**
 * Declares a connector. Checks its shape at once, so a malformed one fails where it is written
 * (a bug to fix), not in a user's session.
 */
export function defineConnector<Client>(
  definition: ConnectorDefinition<Client>,
): ConnectorDefinition<Client> {
  if (!CONNECTOR_ID.test(definition.id))
    throw new Error(
      `connector id "${definition.id}": use lowercase letters and digits, starting with a letter`,
    );
  if (!/^[A-Z_][A-Z0-9_]*$/.test(definition.auth.env))
    throw new Error(
      `connector ${definition.id}: auth.env "${definition.auth.env}" is not an environment variable name`,
    );
  const seen = new Set<string>();
  for (const action of definition.actions) {
    if (!ACTION_NAME.test(action.name))
      throw new Error(
        `connector ${definition.id}: action "${action.name}": use lowercase letters, digits and _, starting with a letter`,
      );
    if (seen.has(action.name))
      throw new Error(`connector ${definition.id}: action "${action.name}" is declared twice`);
    seen.add(action.name);
  }
  return definition;
}

/**
 * An action builder for one client type: `const action = actionsFor<MyClient>()`, then
 * `action({ … })` gets `args` typed from its schema and `client` typed as `MyClient`.
 */
export function actionsFor<Client>() {
  return <P extends TSchema>(action: ConnectorAction<Client, P>): ConnectorAction<Client, P> => action;
}
