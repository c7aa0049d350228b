// @keel/ext-connector: third-party service actions (GitHub, Linear, yours) in on-demand catalogs,
// behind one approval policy the user owns; and the connector SDK to write more of them.
import { connectorExtension } from "./extension.js";
import { githubConnector } from "./github/connector.js";
import { linearConnector } from "./linear/connector.js";

export { type ConnectorCliOptions, connectorCli } from "./cli.js";
export { type ConnectorConfig, ConnectorConfigSchema } from "./config.js";
export {
  type ConnectorExtensionOptions,
  type ConnectorInstance,
  type ConnectorRuntime,
  connectorExtension,
} from "./extension.js";
export { githubConnector } from "./github/connector.js";
export { linearConnector } from "./linear/connector.js";
export type { DecisionRecord } from "./policy/gate.js";
export { callHash } from "./policy/grants.js";
export { DEFAULT_RULES, type PolicyConfig, type PolicyRule, ruleFor } from "./policy/policy.js";
export * from "./sdk.js";

/** The connectors that ship with Keel. */
export const officialConnectors = [githubConnector, linearConnector] as const;

/** The connector extension as the CLI composes it: GitHub and Linear. */
export const officialConnectorExtension = connectorExtension({ connectors: officialConnectors });

export default officialConnectorExtension;
